/** Real sockets on loopback: how undici's own connection errors come out of the client. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPlatformClient, UnreachableError } from '../../src/client/index.ts';

const session = { header: 'Bearer t', teamId: 'team-1' };
let server: Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<number> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const port = await listen(() => {});
  await new Promise((resolve) => server!.close(resolve));
  server = undefined;
  return port;
}

describe('connection failures', () => {
  it('reports a refused connection as UnreachableError after retrying a read', async () => {
    const sleeps: number[] = [];
    const platform = createPlatformClient({
      baseUrl: `http://127.0.0.1:${await closedPort()}/v1`,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    try {
      const failure = await platform
        .as(session)
        .attacks.listActive()
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UnreachableError);
      expect(failure).toMatchObject({ code: 'ECONNREFUSED', outcomeUnknown: false, path: '/attacks/active' });
      expect(sleeps).toHaveLength(2);
    } finally {
      await platform.close();
    }
  });

  it('knows a create whose connection was refused did not happen', async () => {
    const platform = createPlatformClient({ baseUrl: `http://127.0.0.1:${await closedPort()}/v1` });
    try {
      const create = platform.as(session).attacks.create({ command: { type: 'cpu' }, target: { type: 'Random' } });
      await expect(create).rejects.toMatchObject({ name: 'UnreachableError', outcomeUnknown: false });
    } finally {
      await platform.close();
      await platform.close();
    }
  });

  it('marks a create whose socket closed before an answer as of unknown outcome', async () => {
    let received = 0;
    const port = await listen((request) => {
      received += 1;
      request.socket.destroy();
    });
    const platform = createPlatformClient({ baseUrl: `http://127.0.0.1:${port}/v1` });
    try {
      const create = platform.as(session).attacks.create({ command: { type: 'cpu' }, target: { type: 'Random' } });
      await expect(create).rejects.toMatchObject({ name: 'UnreachableError', outcomeUnknown: true });
      expect(received).toBe(1);
    } finally {
      await platform.close();
    }
  });
});
