import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for values at rest. The storage key is bound in as associated data, so a value
 * copied under another person's key does not decrypt. A value written under the previous key
 * still opens while `SESSION_KEY_PREVIOUS` is set; callers re-save it under the current one.
 */
export class SessionCipher {
  readonly #keys: { id: string; key: Buffer }[];

  constructor(current: Buffer, previous?: Buffer) {
    if (current.length !== 32) throw new Error('SESSION_KEY must be 32 bytes');
    this.#keys = [current, previous]
      .filter((k): k is Buffer => k !== undefined && k.length === 32)
      .map((key) => ({ id: keyId(key), key }));
  }

  seal(plaintext: string, associatedData: string): string {
    const { id, key } = this.#keys[0]!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(associatedData));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      'v1',
      id,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      body.toString('base64url'),
    ].join('.');
  }

  /** The plaintext and whether it was sealed with an older key; undefined when it cannot be opened. */
  open(sealed: string, associatedData: string): { plaintext: string; stale: boolean } | undefined {
    const [version, id, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !id || !iv || !tag || body === undefined) return undefined;
    const index = this.#keys.findIndex((k) => k.id === id);
    const entry = this.#keys[index];
    if (!entry) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(associatedData));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const plaintext = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
      return { plaintext, stale: index > 0 };
    } catch {
      return undefined;
    }
  }
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}
