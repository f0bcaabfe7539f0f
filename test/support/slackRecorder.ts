import { createServer, type IncomingMessage, type Server } from 'node:http';

/** One request as Slack sent it: the exact bytes, and the headers its signature covers. */
export interface RecordedRequest {
  headers: Record<string, string>;
  body: string;
}

/** Headers passed on and kept: those Bolt reads to verify and parse a request. */
const kept = [
  'content-type',
  'x-slack-request-timestamp',
  'x-slack-signature',
  'x-slack-retry-num',
  'x-slack-retry-reason',
];

/**
 * Stands between the fake Slack and the bot: passes every request through unchanged and keeps a
 * copy, so a test can send one of them again exactly as it was signed, as someone who captured
 * it could for the five minutes its signature stays valid. Given several bots (replicas), it
 * hands each request to all of them at once, as a load balancer retrying on every replica might,
 * and answers with the first one's response.
 */
export class SlackRecorder {
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #targets: string[];

  private constructor(server: Server, targets: string[]) {
    this.#server = server;
    this.#targets = targets;
  }

  /** Starts on a free loopback port, forwarding to each of `targets` (bots' /slack/events URLs). */
  static async start(...targets: string[]): Promise<SlackRecorder> {
    let recorder: SlackRecorder | undefined;
    const server = createServer((req, res) => {
      void (async () => {
        const request = await read(req);
        recorder!.requests.push(request);
        const [answer] = await Promise.all(targets.map((target) => recorder!.send(request, target)));
        res.writeHead(answer!.status, { 'content-type': answer!.contentType ?? 'text/plain' }).end(answer!.body);
      })().catch(() => res.writeHead(502).end());
    });
    recorder = new SlackRecorder(server, targets);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return recorder;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as { port: number }).port}/slack/events`;
  }

  /** The recorded requests whose form fields match `test` (slash commands, and interactions by their `payload` field). */
  find(test: (fields: URLSearchParams) => boolean): RecordedRequest[] {
    return this.requests.filter(
      (r) =>
        r.headers['content-type']?.startsWith('application/x-www-form-urlencoded') && test(new URLSearchParams(r.body)),
    );
  }

  /** Sends a recorded request to a bot (default the first) again, byte for byte, with its original signature. */
  async send(
    request: RecordedRequest,
    target = this.#targets[0]!,
  ): Promise<{ status: number; body: string; contentType: string | null }> {
    const response = await fetch(target, { method: 'POST', headers: request.headers, body: request.body });
    return { status: response.status, body: await response.text(), contentType: response.headers.get('content-type') };
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

async function read(req: IncomingMessage): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const name of kept) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return { headers, body: Buffer.concat(chunks).toString('utf8') };
}
