/**
 * Replies to response_urls through the kept-alive pool, as production wires the adapter: the
 * replies land at an HTTP server standing in for Slack's response_url endpoint, which counts the
 * connections they came on.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bot } from '../../src/bootstrap.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/metrics.ts';
import { SlackAdapter, type Listeners } from '../../src/slack/adapter.ts';
import { ResponseUrlReplies } from '../../src/slack/replies.ts';
import { actionDelivery, commandDelivery, RecordingApp, unitBot } from '../support/bolt.ts';

let deps: Bot;
let server: Server;
let replies: ResponseUrlReplies;
let received: { path: string; body: Record<string, unknown> }[];
let connections: number;
let status: number;
let origin: string;

beforeEach(async () => {
  received = [];
  connections = 0;
  status = 200;
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request
      .on('data', (chunk: Buffer) => chunks.push(chunk))
      .on('end', () => {
        received.push({
          path: request.url ?? '',
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        });
        response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'expired_url');
      });
  });
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  replies = new ResponseUrlReplies();
  deps = unitBot(createLogger('info', new Writable({ write: (_chunk, _encoding, done) => done() })));
});

afterEach(async () => {
  await replies.close();
  server.closeAllConnections();
  server.close();
  await deps.platform.close();
  await deps.store.close();
});

function listeners(overrides: Partial<Listeners>): Listeners {
  return {
    command: () => async () => ({ kind: 'none' }),
    actions: {},
    views: {},
    options: {},
    shortcuts: {},
    steps: {},
    events: {},
    ...overrides,
  };
}

describe('replies to response_urls', () => {
  it("answers commands ephemerally, all on one kept-alive connection, never through Bolt's respond", async () => {
    const texts = ['list', 'status', 'help', 'whoami', 'list --all'];
    const app = new RecordingApp();
    new SlackAdapter(
      deps.services,
      { store: deps.store, metrics: createMetrics() },
      { replies: replies.send },
    ).register(
      app.app,
      listeners({ command: (text) => async () => ({ kind: 'message', message: { text: `done: ${text}` } }) }),
    );
    const deliveries = texts.map((text, i) => {
      const delivery = commandDelivery(text);
      (delivery.args['body'] as Record<string, unknown>)['response_url'] = `${origin}/commands/${i}`;
      return delivery;
    });
    for (const delivery of deliveries) await app.deliver('command', '/chaos', delivery);

    expect(received).toEqual(
      texts.map((text, i) => ({
        path: `/commands/${i}`,
        body: { response_type: 'ephemeral', replace_original: false, text: `done: ${text}` },
      })),
    );
    expect(deliveries.flatMap((delivery) => delivery.responds)).toEqual([]);
    // The pool may open a second connection while the first is finishing its answer; never one a reply.
    expect(connections).toBeLessThanOrEqual(2);
  });

  it('replaces the clicked message, with its blocks, when the reply asks to', async () => {
    const app = new RecordingApp();
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'Halt requested' } }];
    new SlackAdapter(
      deps.services,
      { store: deps.store, metrics: createMetrics() },
      { replies: replies.send },
    ).register(
      app.app,
      listeners({
        actions: {
          attack_halt: async () => ({
            kind: 'message',
            message: { text: 'halted', blocks: blocks as never },
            replaceOriginal: true,
          }),
        },
      }),
    );
    const click = actionDelivery('attack_halt', { value: 'ref-1' });
    (click.args['body'] as Record<string, unknown>)['response_url'] = `${origin}/actions/1`;
    await app.deliver('action', 'attack_halt', click);

    expect(received).toEqual([
      { path: '/actions/1', body: { response_type: 'ephemeral', replace_original: true, text: 'halted', blocks } },
    ]);
  });

  it('fails when Slack refuses the reply, and the next reply still goes out', async () => {
    status = 404;
    await expect(replies.send(`${origin}/expired`, { text: 'late' })).rejects.toThrow('Slack refused the reply (404)');
    status = 200;
    await replies.send(`${origin}/fresh`, { text: 'on time' });
    expect(received.map((reply) => reply.path)).toEqual(['/expired', '/fresh']);
  });
});
