import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { Metrics } from './metrics.ts';
import { httpServerOptions } from './slack/receiver.ts';

/**
 * /healthz (process up), /readyz (store reachable, and not stopping), /metrics (Prometheus
 * text): as Bolt's custom routes on the port Slack reaches, and on the operations port.
 */
export class Probes {
  /** A stopping replica says so, so the load balancer sends the next request elsewhere. */
  stopping = false;
  readonly #ping: () => Promise<boolean>;
  readonly #metrics: Metrics;

  constructor(parts: { ping: () => Promise<boolean>; metrics: Metrics }) {
    this.#ping = parts.ping;
    this.#metrics = parts.metrics;
  }

  /** For Bolt's receiver; `metrics: false` leaves /metrics out, which has no authentication. */
  routes(options: { metrics: boolean }): CustomRoute[] {
    const routes: CustomRoute[] = [
      { path: '/healthz', method: 'GET', handler: (_req, res) => this.#healthz(res) },
      { path: '/readyz', method: 'GET', handler: (_req, res) => this.#readyz(res) },
    ];
    if (options.metrics)
      routes.push({ path: '/metrics', method: 'GET', handler: (_req, res) => this.#metricsText(res) });
    return routes;
  }

  /** The operations port: GET of the three paths; anything else is not found. */
  async serve(port: number, host?: string): Promise<Server> {
    const server = createServer(httpServerOptions, (req, res) => {
      // A request line no URL parser reads ("//[", say) is answered, never thrown at the process.
      const path = URL.parse(req.url ?? '/', 'http://localhost')?.pathname;
      if (path === undefined) return reply(res, 400, 'bad request\n');
      switch (req.method === 'GET' ? path : undefined) {
        case '/healthz':
          return this.#healthz(res);
        case '/readyz':
          return this.#readyz(res);
        case '/metrics':
          return this.#metricsText(res);
        default:
          return reply(res, 404, 'not found\n');
      }
    });
    server.listen(port, host);
    await once(server, 'listening');
    return server;
  }

  #healthz(res: ServerResponse): void {
    reply(res, 200, 'ok\n');
  }

  #readyz(res: ServerResponse): void {
    if (this.stopping) reply(res, 503, 'stopping\n');
    else void this.#ping().then((ok) => reply(res, ok ? 200 : 503, ok ? 'ready\n' : 'store unreachable\n'));
  }

  #metricsText(res: ServerResponse): void {
    const { registry } = this.#metrics;
    void registry.metrics().then((text) => reply(res, 200, text, registry.contentType));
  }
}

function reply(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': contentType });
  res.end(body);
}
