/**
 * The ack thread: Slack's HTTP endpoint on a thread of its own, so that an ack never waits behind
 * the work of another request on the main thread (session reads, platform calls, Block Kit).
 *
 * It verifies each delivery's signature with Bolt's own functions and answers at once what is
 * always answered empty (slash commands, button clicks, shortcuts, events), then hands the
 * delivery to the main thread, where Bolt runs the listeners. What needs the listener's answer
 * (modal submissions, options) waits for it here. Every other path (login pages, /healthz,
 * /readyz, /metrics) is passed through to the main thread's own server on a loopback port.
 *
 * Messages: see ThreadMessage and MainMessage in ackThreadProtocol.ts.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
// The module alone, not all of Bolt: this thread starts in a fraction of the time.
import * as slackHttp from '@slack/bolt/dist/receivers/HTTPModuleFunctions.js';
import {
  answersAtOnce,
  forwardedPeerHeader,
  hopByHopHeaders,
  type AckThreadOptions,
  type MainMessage,
  type ThreadMessage,
} from './ackThreadProtocol.ts';

const options = workerData as AckThreadOptions;
const port = parentPort!;
const send = (message: ThreadMessage) => port.postMessage(message);

/** Deliveries waiting for the main thread's answer, by id. */
const waiting = new Map<number, { res: ServerResponse; timer: NodeJS.Timeout }>();
let nextId = 1;
/** Off once the bot is stopping: every delivery then waits for the main thread, which says it is restarting. */
let answeringAtOnce = !options.held;

async function takeDelivery(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let buffered: Awaited<ReturnType<typeof slackHttp.parseAndVerifyHTTPRequest>>;
  try {
    buffered = await slackHttp.parseAndVerifyHTTPRequest(
      { enabled: true, signingSecret: options.signingSecret, bodyLimit: slackHttp.defaultBodyLimit },
      req,
    );
  } catch (error) {
    if (slackHttp.isRawBodyError(error) && (error.type === 'entity.too.large' || error.statusCode === 413)) {
      send({ type: 'log', level: 'warn', message: 'A Slack request body was larger than allowed' });
      slackHttp.buildNoBodyResponse(res, 413);
      return;
    }
    send({
      type: 'log',
      level: 'warn',
      message: `Failed to parse and verify a Slack request: ${(error as Error).message}`,
    });
    slackHttp.buildNoBodyResponse(res, 401);
    return;
  }
  let body: Record<string, unknown>;
  try {
    body = slackHttp.parseHTTPRequestBody(buffered) as Record<string, unknown>;
  } catch (error) {
    send({ type: 'log', level: 'warn', message: `Malformed Slack request body: ${(error as Error).message}` });
    slackHttp.buildNoBodyResponse(res, 400);
    return;
  }
  if (body['ssl_check'] === '1') return slackHttp.buildSSLCheckResponse(res);
  if (body['type'] === 'url_verification') return slackHttp.buildUrlVerificationResponse(res, body);

  const id = nextId++;
  const retryNum = slackHttp.extractRetryNumFromHTTPRequest(req);
  const retryReason = slackHttp.extractRetryReasonFromHTTPRequest(req);
  if (answeringAtOnce && answersAtOnce(body, options.command)) {
    slackHttp.buildContentResponse(res, undefined);
    send({ type: 'delivery', id, body, preAcked: true, retryNum, retryReason });
    return;
  }
  // Bolt's own limit for a request no listener answered: Slack has given up on it by then.
  const timer = setTimeout(() => {
    waiting.delete(id);
    send({ type: 'log', level: 'warn', message: `A Slack request was not answered within ${options.unansweredMs} ms` });
    slackHttp.buildNoBodyResponse(res, 404);
  }, options.unansweredMs);
  waiting.set(id, { res, timer });
  send({ type: 'delivery', id, body, preAcked: false, retryNum, retryReason });
}

/** The headers that belong to one connection, not to the request or answer it carries. */
function endToEnd(headers: IncomingMessage['headers']): IncomingMessage['headers'] {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !hopByHopHeaders.includes(name) && !named.includes(name)),
  );
}

/** Any other path, to the main thread's server, with the address the request came from. */
function passThrough(req: IncomingMessage, res: ServerResponse, path: string): void {
  const headers = {
    ...endToEnd(req.headers),
    [forwardedPeerHeader]: `${options.peerToken} ${req.socket.remoteAddress ?? ''}`,
  };
  // One connection per request: the main thread reads the forwarded address once per connection.
  const upstream = request(
    { host: '127.0.0.1', port: options.routesPort, method: req.method, path: req.url, headers, agent: false },
    (answer) => {
      // That connection's own headers stay on it: the client's connection is kept alive as it asked.
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
    },
  );
  upstream.on('error', (error) => {
    // The client went away first: its request was dropped on purpose.
    if (res.destroyed || res.writableEnded) return;
    send({
      type: 'log',
      level: 'error',
      message: `The main thread did not answer ${req.method} ${path}: ${error.message}`,
    });
    if (!res.headersSent) slackHttp.buildNoBodyResponse(res, 502);
    else res.destroy();
  });
  // A client that goes away mid-request takes the request to the main thread with it.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

const server = createServer((req, res) => {
  // A request line no URL parser accepts ("//[", say) is answered, never thrown at the thread.
  const path = URL.parse(req.url ?? '/', 'http://localhost')?.pathname;
  if (path === undefined) {
    slackHttp.buildNoBodyResponse(res, 400);
    return;
  }
  if (req.method === 'POST' && path === options.endpoint) {
    takeDelivery(req, res).catch((error: unknown) => {
      send({ type: 'log', level: 'error', message: `Could not take a Slack request: ${(error as Error).message}` });
      if (!res.headersSent) slackHttp.buildNoBodyResponse(res, 500);
    });
    return;
  }
  passThrough(req, res, path);
});

port.on('message', (message: MainMessage) => {
  switch (message.type) {
    case 'ack': {
      const entry = waiting.get(message.id);
      if (!entry) return;
      waiting.delete(message.id);
      clearTimeout(entry.timer);
      if (message.failed) slackHttp.buildNoBodyResponse(entry.res, 500);
      else slackHttp.buildContentResponse(entry.res, message.response);
      return;
    }
    case 'hold':
      answeringAtOnce = false;
      send({ type: 'holding' });
      return;
    case 'close':
      server.close(() => send({ type: 'closed' }));
      server.closeIdleConnections();
      return;
  }
});

server.on('error', (error) => send({ type: 'failed', message: error.message }));
server.listen(options.port, () => send({ type: 'listening', port: (server.address() as AddressInfo).port }));
