import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on a free loopback port in front of a server (Redis, here), that a test can cut:
 * every connection through it drops at once and new ones are closed as soon as they open, as
 * when the network between the bot and its store fails, while the server itself runs on.
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #open = new Set<Socket>();
  #cut = false;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => {
      if (proxy!.#cut) {
        client.destroy();
        return;
      }
      const upstream = createConnection({ port: targetPort, host: targetHost });
      for (const [socket, other] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        proxy!.#open.add(socket);
        socket.on('error', () => other.destroy());
        socket.on('close', () => {
          proxy!.#open.delete(socket);
          other.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    proxy = new TcpProxy(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as { port: number }).port;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Drops every connection through the proxy and refuses new ones until `restore`. */
  cut(): void {
    this.#cut = true;
    for (const socket of this.#open) socket.destroy();
  }

  restore(): void {
    this.#cut = false;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}
