import { afterEach, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/store/redisStore.ts';
import { StoreUnavailableError } from '../../src/store/errors.ts';
import { freePort } from '../support/ports.ts';

/** A Redis store whose server is not there: nothing listens on its port. */
describe('the Redis store with no Redis to reach', () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  afterEach(() => {
    process.off('warning', onWarning);
  });

  it('refuses many calls at once with the store error, waiting for the connection once rather than once per call', async () => {
    process.on('warning', onWarning);
    const store = createRedisStore(`redis://127.0.0.1:${await freePort()}`, 'nobody-home', {
      connectTimeoutMs: 200,
      readyWaitMs: 300,
    });
    try {
      const calls = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => store.get(`card:${i}`)));
      expect(calls.every((c) => c.status === 'rejected' && c.reason instanceof StoreUnavailableError)).toBe(true);
      // Let a warning emitted on the way reach the listener.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      await store.close();
    }
  });
});
