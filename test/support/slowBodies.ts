import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';

/** One connection that declared a large body and sent all of it but the last byte. */
export interface SlowBody {
  /** Resolves once the bot closed the connection (it never does while the body is held, unless it refuses or times out). */
  closed: Promise<void>;
  /** Whether it is closed now. */
  readonly gone: boolean;
  /** Closes it from the client's end. */
  close(): void;
}

/** Resolves once at least `count` of `bodies` are closed. */
export function closedAtLeast(bodies: SlowBody[], count: number): Promise<void> {
  let closed = 0;
  return new Promise((resolve) => {
    if (count <= 0) resolve();
    for (const body of bodies) void body.closed.then(() => ++closed === count && resolve());
  });
}

const chunk = Buffer.alloc(64 * 1024, 'a');

/**
 * Opens a connection to `POST /slack/events` that declares a body of `declared` bytes, with
 * signature headers of the right shape and a fresh timestamp (anyone can write those: only the
 * body proves them wrong), sends all of the body but its last byte as fast as the bot reads it,
 * and then waits. Resolves when the bytes are out or the bot closed the connection. `sends`: how
 * much of the body to send instead; `from`: the local address to connect from (any of
 * 127.0.0.0/8 on Linux), to stand for another client.
 */
export async function slowBody(
  port: number,
  declared: number,
  options: { from?: string; sends?: number } = {},
): Promise<SlowBody> {
  const { from, sends = declared - 1 } = options;
  const socket: Socket = connect({ port, host: '127.0.0.1', ...(from ? { localAddress: from } : {}) });
  socket.on('error', () => undefined);
  // Whatever the bot answers is read and dropped: an unread answer would keep the socket from closing.
  socket.resume();
  // Events are waited for with listeners of their own: `once` would throw the refused write's error.
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const event = (name: string) => new Promise<void>((resolve) => socket.once(name, () => resolve()));
  let gone = false;
  void closed.then(() => (gone = true));
  await Promise.race([event('connect'), closed]);
  const body: SlowBody = {
    closed,
    get gone() {
      return gone;
    },
    close: () => socket.destroy(),
  };
  if (gone) return body;
  socket.write(
    [
      'POST /slack/events HTTP/1.1',
      'Host: faultline',
      'Content-Type: application/x-www-form-urlencoded',
      `Content-Length: ${declared}`,
      `X-Slack-Request-Timestamp: ${Math.floor(Date.now() / 1000)}`,
      `X-Slack-Signature: v0=${'0'.repeat(64)}`,
      '',
      '',
    ].join('\r\n'),
  );
  // The client keeps nothing of its own: each chunk waits until the last one was taken.
  for (let left = sends; left > 0 && !gone; left -= chunk.length) {
    const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
    if (!socket.write(piece)) await Promise.race([event('drain'), closed]);
  }
  return body;
}

/** Resident memory of a process (Linux), in MiB. */
export async function residentMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  return Math.round(kib / 1024);
}

/**
 * Sends a request's headers to `POST /slack/events`, declaring a body it never sends, and
 * resolves with the status line of the answer: only an answer given before reading the body comes.
 */
export async function answerBeforeBody(port: number, headers: Record<string, string>): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  const lines = Object.entries({ host: 'faultline', 'content-length': '1000', ...headers }).map(
    ([k, v]) => `${k}: ${v}`,
  );
  socket.write(['POST /slack/events HTTP/1.1', ...lines, '', ''].join('\r\n'));
  const [first] = (await once(socket, 'data')) as [Buffer];
  socket.destroy();
  return String(first).split('\r\n')[0] ?? '';
}
