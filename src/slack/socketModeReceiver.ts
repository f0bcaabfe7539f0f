import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { type CustomRoute, SocketModeReceiver, type SocketModeReceiverOptions } from '@slack/bolt';
import { httpServerOptions } from './unverifiedBodies.ts';

/**
 * Bolt's Socket Mode receiver, whose HTTP server for the custom routes keeps what the bot's other
 * servers guarantee. Bolt makes that server in its constructor without options and keeps it
 * private, and its start() listens on every interface without waiting; its request listener is
 * async, so a request line its URL parser cannot read ("//[") would reject unhandled and end the
 * process. Here the server has the bot's time limits, listens on `host` before the socket opens
 * (a port in use fails the start), and such a request is answered 400.
 */
export class SocketModeRoutesReceiver extends SocketModeReceiver {
  /** Bolt's server for the custom routes. */
  readonly server: Server;
  readonly #port: number;
  readonly #host: string | undefined;

  constructor(options: SocketModeReceiverOptions & { customRoutes: CustomRoute[]; port: number; host?: string }) {
    const { port, host, ...bolt } = options;
    super(bolt);
    this.#port = port;
    this.#host = host;
    // The seam: the server Bolt made for the custom routes, and its request listener.
    this.server = (this as unknown as { httpServer: Server }).httpServer;
    // Node reads these when the server starts listening and at each check, not only when it is made.
    Object.assign(this.server, httpServerOptions);
    const [serve] = this.server.listeners('request') as ((
      req: IncomingMessage,
      res: ServerResponse,
    ) => Promise<void>)[];
    this.server.removeAllListeners('request');
    this.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      serve!(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('bad request\n');
      });
    });
  }

  override async start(): ReturnType<SocketModeReceiver['start']> {
    this.server.listen(this.#port, this.#host);
    await once(this.server, 'listening');
    return this.client.start();
  }

  /** Closes the socket, and the server once its requests are answered. */
  override async stop(): Promise<void> {
    const closed = once(this.server, 'close');
    await super.stop();
    await closed;
  }
}
