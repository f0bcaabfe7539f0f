import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { boltLogger, createLogger } from '../../src/logger.ts';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

describe('logger', () => {
  it('redacts secret fields at any depth', () => {
    const { lines, stream } = capture();
    const logger = createLogger('debug', stream);
    logger.info(
      {
        password: 'pw-1',
        session: { token: 'tok-1', renew_token: 'renew-1', header: 'Bearer hdr-1' },
        req: { headers: { authorization: 'Bearer auth-1' } },
        SESSION_KEY: 'key-1',
      },
      'login',
    );
    const out = lines.join('');
    for (const secret of ['pw-1', 'tok-1', 'renew-1', 'hdr-1', 'auth-1', 'key-1']) expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
    expect(JSON.parse(lines[0]!).msg).toBe('login');
  });

  it('scrubs Slack tokens and bearer values out of free text', () => {
    const { lines, stream } = capture();
    const logger = createLogger('info', stream);
    logger.warn('call failed with xoxb-1234-5678-abcdefg and Authorization: Bearer 9f8e7d6c-aaaa');
    const out = lines.join('');
    expect(out).not.toContain('xoxb-1234-5678-abcdefg');
    expect(out).not.toContain('9f8e7d6c-aaaa');
    expect(out).toContain('call failed');
  });

  it("never passes on Bolt's debug output, which can hold raw payloads", () => {
    const { lines, stream } = capture();
    const slack = boltLogger(createLogger('debug', stream));
    slack.debug('Received a message on the WebSocket: {"password":"hunter2"}');
    slack.info('A Slack info line with xapp-1-A0-123-abc');
    const out = lines.join('');
    expect(out).not.toContain('hunter2');
    expect(out).toContain('A Slack info line');
    expect(out).not.toContain('xapp-1-A0-123-abc');
  });

  it('scrubs one-time login link tokens out of request lines', () => {
    const { lines, stream } = capture();
    const slack = boltLogger(createLogger('info', stream));
    const token = 'Q2hhb3MtZGVtby1sb2dpbi1saW5rLXRva2VuLTEyMzQ1Njc4OTA';
    slack.info(`Unhandled HTTP request (HEAD) made to /login/${token}`);
    const out = lines.join('');
    expect(out).not.toContain(token);
    expect(out).toContain('/login/[redacted]');
  });
});
