import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../src/index.ts';

let fake: FakeSlack;
beforeEach(async () => {
  fake = await startFakeSlack({ signingSecret: 'secret', botToken: 'xoxb-wait-test' });
});
afterEach(() => fake.stop());

describe('waitFor', () => {
  it('waits for what an async check resolves to, not for the promise it returns', async () => {
    let ready = false;
    const waiting = fake.waitFor(async () => ready || undefined, 'the flag', 2000);
    let done = false;
    void waiting.then(() => {
      done = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    ready = true;
    await expect(waiting).resolves.toBe(true);
  });

  it('times out when an async check never holds', async () => {
    await expect(fake.waitFor(async () => false, 'a check that never holds', 100)).rejects.toThrow(
      'Timed out after 100 ms waiting for a check that never holds',
    );
  });
});
