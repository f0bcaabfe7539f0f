import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SessionCipher } from '../../src/store/cipher.ts';

describe('SessionCipher', () => {
  const current = randomBytes(32);
  const previous = randomBytes(32);

  it('opens what it sealed, and the sealed text does not contain the plaintext', () => {
    const cipher = new SessionCipher(current);
    const sealed = cipher.seal('{"token":"secret-token-value"}', 'session:T1:U1');
    expect(sealed).not.toContain('secret-token-value');
    expect(cipher.open(sealed, 'session:T1:U1')).toEqual({ plaintext: '{"token":"secret-token-value"}', stale: false });
  });

  it('uses a fresh IV each time', () => {
    const cipher = new SessionCipher(current);
    expect(cipher.seal('same', 'k')).not.toBe(cipher.seal('same', 'k'));
  });

  it('refuses a value moved under another storage key', () => {
    const cipher = new SessionCipher(current);
    expect(cipher.open(cipher.seal('x', 'session:T1:U1'), 'session:T1:U2')).toBeUndefined();
  });

  it('refuses a tampered value', () => {
    const cipher = new SessionCipher(current);
    const parts = cipher.seal('attack', 'k').split('.');
    const body = Buffer.from(parts[4]!, 'base64url');
    body[0] = body[0]! ^ 1;
    parts[4] = body.toString('base64url');
    expect(cipher.open(parts.join('.'), 'k')).toBeUndefined();
  });

  it('opens values of the previous key during a rotation and marks them stale', () => {
    const old = new SessionCipher(previous);
    const rotated = new SessionCipher(current, previous);
    expect(rotated.open(old.seal('v', 'k'), 'k')).toEqual({ plaintext: 'v', stale: true });
    expect(new SessionCipher(current).open(old.seal('v', 'k'), 'k')).toBeUndefined();
  });
});
