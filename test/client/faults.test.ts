/**
 * Faults the simulator cannot produce on demand, or whose exact handling matters, played with
 * undici's MockAgent: nothing leaves the process.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createPlatformClient,
  InvalidResponseError,
  type Logger,
  type PlatformClientOptions,
  ServerError,
  take,
  TimeoutError,
  UnauthorizedError,
  UnreachableError,
} from '../../src/client/index.ts';

const origin = 'https://platform.test';
const session = { header: 'Bearer secret-session-token', teamId: 'team-1' };
const attack = { guid: 'a-1', stage: 'Running', stage_lifecycle: 'Active' };
const json = { headers: { 'content-type': 'application/json' } };

let agent: MockAgent;
let sleeps: number[];

beforeEach(() => {
  agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  sleeps = [];
});

afterEach(async () => {
  await agent.close();
});

function client(options: Partial<PlatformClientOptions> = {}) {
  return createPlatformClient({
    baseUrl: `${origin}/v1`,
    dispatcher: agent,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
}

const pool = () => agent.get(origin);
const calls = () => agent.getCallHistory()?.calls() ?? [];
const resetError = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

describe('retries', () => {
  it('waits what Retry-After asks after a 429, then succeeds once', async () => {
    pool()
      .intercept({ path: '/v1/attacks/active?teamId=team-1' })
      .reply(429, 'slow down', { headers: { 'retry-after': '2' } });
    pool().intercept({ path: '/v1/attacks/active?teamId=team-1' }).reply(200, [attack], json);

    const attacks = await client().as(session).attacks.listActive();

    expect(attacks.map((a) => a.guid)).toEqual(['a-1']);
    expect(sleeps).toEqual([2000]);
    expect(calls()).toHaveLength(2);
  });

  it('retries a read through two 503s', async () => {
    pool().intercept({ path: '/v1/attacks/a-1?teamId=team-1' }).reply(503, 'unavailable').times(2);
    pool().intercept({ path: '/v1/attacks/a-1?teamId=team-1' }).reply(200, attack, json);

    const found = await client().as(session).attacks.get('a-1');

    expect(found.guid).toBe('a-1');
    expect(calls()).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeLessThan(250);
    expect(sleeps[1]).toBeLessThan(500);
  });

  it('gives up after maxAttempts with the last error', async () => {
    pool().intercept({ path: '/v1/attacks/a-1?teamId=team-1' }).reply(502, 'bad gateway').persist();

    const failure = client({ retry: { maxAttempts: 4 } })
      .as(session)
      .attacks.get('a-1');

    await expect(failure).rejects.toBeInstanceOf(ServerError);
    await expect(failure).rejects.toMatchObject({ status: 502 });
    expect(calls()).toHaveLength(4);
  });

  it('does not retry a create answering 503', async () => {
    pool().intercept({ path: '/v1/attacks/new?teamId=team-1', method: 'POST' }).reply(503, 'unavailable').persist();

    const create = client()
      .as(session)
      .attacks.create({ command: { type: 'cpu' }, target: { type: 'Random' } });

    await expect(create).rejects.toBeInstanceOf(ServerError);
    expect(calls()).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('does not retry a login', async () => {
    pool().intercept({ path: '/v1/users/auth?getCompanySession=true', method: 'POST' }).reply(503, '').persist();

    await expect(client().auth.login({ email: 'a@b.test', password: 'pw' })).rejects.toBeInstanceOf(ServerError);
    expect(calls()).toHaveLength(1);
  });

  it('retries a halt POST, which the contract makes idempotent', async () => {
    pool().intercept({ path: '/v1/attacks/a-1/halt?teamId=team-1', method: 'POST' }).reply(503, '');
    pool().intercept({ path: '/v1/attacks/a-1/halt?teamId=team-1', method: 'POST' }).reply(202, [attack], json);

    expect(await client().as(session).attacks.halt('a-1')).toHaveLength(1);
    expect(calls()).toHaveLength(2);
  });
});

describe('timeouts', () => {
  it('ends a create that does not answer with an unknown outcome, after one request', async () => {
    pool()
      .intercept({ path: '/v1/attacks/new?teamId=team-1', method: 'POST' })
      .reply(201, 'a-9')
      .delay(60_000)
      .persist();

    const create = client({ timeoutMs: 50 })
      .as(session)
      .attacks.create({ command: { type: 'cpu' }, target: { type: 'Random' } });

    await expect(create).rejects.toBeInstanceOf(TimeoutError);
    await expect(create).rejects.toMatchObject({ outcomeUnknown: true, method: 'POST', path: '/attacks/new' });
    expect(calls()).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('times out a read that hangs, retrying it as a read', async () => {
    pool().intercept({ path: '/v1/attacks/active?teamId=team-1' }).reply(200, []).delay(60_000).persist();

    const list = client({ timeoutMs: 50 }).as(session).attacks.listActive();

    await expect(list).rejects.toBeInstanceOf(TimeoutError);
    await expect(list).rejects.toMatchObject({ outcomeUnknown: false });
    expect(calls()).toHaveLength(3);
  });
});

describe('the deadline of a call', () => {
  it('covers the body: one that stalls after the headers times out', async () => {
    // A real server on loopback: headers and half a JSON array, then nothing.
    const sockets = new Set<import('node:net').Socket>();
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('[{"guid":"a-1"');
    });
    server.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // No timeout of the dispatcher's own: only the call's deadline can end the wait.
    const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
    try {
      const list = createPlatformClient({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        dispatcher,
        timeoutMs: 100,
        retry: { maxAttempts: 1 },
        sleep: async () => {},
      })
        .as(session)
        .attacks.listActive();
      await expect(list).rejects.toBeInstanceOf(TimeoutError);
    } finally {
      for (const socket of sockets) socket.destroy();
      await dispatcher.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('connection failures', () => {
  it('reports a reset as UnreachableError once retries are spent', async () => {
    pool().intercept({ path: '/v1/attacks/active?teamId=team-1' }).replyWithError(resetError()).persist();

    const list = client().as(session).attacks.listActive();

    await expect(list).rejects.toBeInstanceOf(UnreachableError);
    await expect(list).rejects.toMatchObject({ code: 'ECONNRESET', outcomeUnknown: false });
    expect(calls()).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('marks a create cut off by a reset as of unknown outcome, without retrying', async () => {
    pool().intercept({ path: '/v1/attacks/new?teamId=team-1', method: 'POST' }).replyWithError(resetError()).persist();

    const create = client()
      .as(session)
      .attacks.create({ command: { type: 'cpu' }, target: { type: 'Random' } });

    await expect(create).rejects.toMatchObject({ name: 'UnreachableError', outcomeUnknown: true });
    expect(calls()).toHaveLength(1);
  });
});

describe('what goes on the wire', () => {
  it('sends the session header, adds teamId to team calls only, and posts logins as a form', async () => {
    pool().intercept({ path: '/v1/attacks/halt', method: 'POST' }).reply(202, [], json);
    pool()
      .intercept({ path: '/v1/users/auth/mfa/auth?getCompanySession=true', method: 'POST' })
      .reply(200, { header: 'Bearer new' }, json);
    pool()
      .intercept({ path: (p) => p.startsWith('/v1/tracker/issues?'), method: 'GET' })
      .reply(200, [], json);

    const platform = client();
    await platform.as(session).attacks.haltAll({ reason: 'game day over' });
    await platform.auth.login({ email: 'sre@acme.test', password: 'pw&=1', mfaCode: '246810' });
    await platform.as(session).tracker.issues(['a-1', 'a-2']);

    const [haltAll, login, issues] = calls();
    expect(haltAll?.fullUrl).toBe(`${origin}/v1/attacks/halt`);
    expect(haltAll?.headers).toMatchObject({
      authorization: 'Bearer secret-session-token',
      'content-type': 'application/json',
    });
    expect(haltAll?.body).toBe('{"reason":"game day over"}');
    expect(login?.headers).toMatchObject({ 'content-type': 'application/x-www-form-urlencoded' });
    expect(login?.headers).not.toHaveProperty('authorization');
    expect(Object.fromEntries(new URLSearchParams(login?.body ?? ''))).toEqual({
      email: 'sre@acme.test',
      password: 'pw&=1',
      token: '246810',
    });
    expect(issues?.fullUrl).toBe(
      `${origin}/v1/tracker/issues?platformEntityIds=a-1&platformEntityIds=a-2&teamId=team-1`,
    );
  });

  it('sends no Authorization header for an empty session header', async () => {
    pool().intercept({ path: '/v1/users/auth', method: 'DELETE' }).reply(401, 'Please provide proper credentials');

    await expect(client().auth.logout({ header: '' })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(calls()[0]?.headers).not.toHaveProperty('authorization');
  });

  it('reads a 201 text guid, quoted or not', async () => {
    pool()
      .intercept({ path: '/v1/attacks/new?teamId=team-1', method: 'POST' })
      .reply(201, '"a-42"', { headers: { 'content-type': 'text/plain' } });
    pool().intercept({ path: '/v1/attacks/new?teamId=team-1', method: 'POST' }).reply(201, 'a-43');

    const attacks = client().as(session).attacks;
    expect(await attacks.create({ command: { type: 'cpu' }, target: { type: 'Random' } })).toBe('a-42');
    expect(await attacks.create({ command: { type: 'cpu' }, target: { type: 'Random' } })).toBe('a-43');
  });

  it('does not parse JSON that is not labelled JSON', async () => {
    pool()
      .intercept({ path: '/v1/attacks/a-1?teamId=team-1' })
      .reply(200, JSON.stringify(attack), { headers: { 'content-type': 'text/plain' } });

    await expect(client().as(session).attacks.get('a-1')).rejects.toBeInstanceOf(InvalidResponseError);
  });

  it('fails a body that breaks the contract with a message free of the body', async () => {
    pool()
      .intercept({ path: '/v1/attacks/active?teamId=team-1' })
      .reply(200, [{ stage: 'Running', secret: 'hunter2' }], json);
    pool().intercept({ path: '/v1/attacks/a-1?teamId=team-1' }).reply(200, '{"guid": "a-1", hunter2', json);

    const attacks = client().as(session).attacks;
    const invalid = await attacks.listActive().catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(InvalidResponseError);
    expect((invalid as InvalidResponseError).issues).toEqual([expect.stringMatching(/^0\.guid: /)]);
    expect(String(invalid)).not.toContain('hunter2');
    const broken = await attacks.get('a-1').catch((error: unknown) => error);
    expect(broken).toBeInstanceOf(InvalidResponseError);
    expect(String(broken)).not.toContain('hunter2');
  });

  it('maps a 401 without retrying it', async () => {
    pool()
      .intercept({ path: '/v1/attacks/active?teamId=team-1' })
      .reply(401, 'Please provide proper credentials')
      .persist();

    await expect(client().as(session).attacks.listActive()).rejects.toMatchObject({
      name: 'UnauthorizedError',
      reason: 'session',
    });
    expect(calls()).toHaveLength(1);
  });

  it('fetches only the first page for the first items', async () => {
    const items = Array.from({ length: 3 }, (_, i) => ({ guid: `a-${i}` }));
    pool()
      .intercept({ path: '/v1/attacks/active/paged?pageSize=3&teamId=team-1' })
      .reply(200, { items, pageSize: 3, pageToken: 'p2' }, json);

    const first = await take(client().as(session).attacks.iterateActive({ pageSize: 3 }), 3);

    expect(first.map((a) => a.guid)).toEqual(['a-0', 'a-1', 'a-2']);
    expect(calls()).toHaveLength(1);
  });
});

describe('logging', () => {
  it('logs method, path, status and duration, never credentials or bodies', async () => {
    const lines: { level: string; obj: object; msg?: string | undefined }[] = [];
    const logger: Logger = {
      debug: (obj, msg) => lines.push({ level: 'debug', obj, msg }),
      info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
      warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
      error: (obj, msg) => lines.push({ level: 'error', obj, msg }),
    };
    pool()
      .intercept({ path: '/v1/users/auth?getCompanySession=true', method: 'POST' })
      .reply(200, { header: 'Bearer issued-token-123', token: 'issued-token-123', renew_token: 'renew-456' }, json);
    pool().intercept({ path: '/v1/attacks/active?teamId=team-1' }).reply(503, 'down');
    pool().intercept({ path: '/v1/attacks/active?teamId=team-1' }).reply(200, [attack], json);
    pool().intercept({ path: '/v1/users/auth', method: 'DELETE' }).reply(401, 'Please provide proper credentials');

    const platform = client({ logger });
    await platform.auth.login({ email: 'owner@acme.test', password: 'chaos-demo-1' });
    await platform.as(session).attacks.listActive();
    await expect(platform.auth.logout(session)).rejects.toBeInstanceOf(UnauthorizedError);

    const text = JSON.stringify(lines);
    for (const secret of [
      'chaos-demo-1',
      'issued-token-123',
      'renew-456',
      'secret-session-token',
      'owner@acme.test',
      'Running',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(lines[0]?.obj).toMatchObject({
      method: 'POST',
      path: '/users/auth',
      status: 200,
      durationMs: expect.any(Number),
    });
    expect(lines.some((line) => line.level === 'warn' && (line.obj as { status?: number }).status === 503)).toBe(true);
    expect(lines.some((line) => line.msg === 'retrying platform request')).toBe(true);
  });
});
