import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Keyv from 'keyv';
import KeyvSqlite from '@keyv/sqlite';
import KeyvRedis from '@keyv/redis';

/** The one persistent map everything stateful goes through: sessions, cards, poller state, game days. */
export interface KeyValueStore {
  get<T>(key: string): Promise<T | undefined>;
  /** `ttlMs` undefined keeps the value until it is deleted. */
  set<T>(key: string, value: T, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;
  /** True when the backing store answers; used by /readyz. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
  readonly kind: 'sqlite' | 'redis' | 'memory';
}

export function createKeyValueStore(url: string, namespace = 'faultline'): KeyValueStore {
  const kind = url.startsWith('sqlite://') ? 'sqlite' : url.startsWith('memory://') ? 'memory' : 'redis';
  let keyv: Keyv;
  if (kind === 'sqlite') {
    const file = resolve(url.slice('sqlite://'.length));
    mkdirSync(dirname(file), { recursive: true });
    keyv = new Keyv({ store: new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: 5_000 }), namespace });
  } else if (kind === 'redis') {
    keyv = new Keyv({ store: new KeyvRedis(url), namespace, useKeyPrefix: false });
  } else {
    keyv = new Keyv({ namespace });
  }
  // Keyv reports connection problems as events; the calls themselves reject, which callers handle.
  keyv.on('error', () => {});
  return {
    kind,
    async get<T>(key: string) {
      return (await keyv.get(key)) as T | undefined;
    },
    async set<T>(key: string, value: T, ttlMs?: number) {
      const ok = await keyv.set(key, value, ttlMs);
      if (ok === false) throw new Error(`The store did not save ${key.split(':')[0]}`);
    },
    async delete(key: string) {
      return keyv.delete(key);
    },
    async ping() {
      // A Redis client that lost its server queues commands while it reconnects; bound the wait.
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), 1_000);
      });
      try {
        return await Promise.race([keyv.get('readiness-probe').then(() => true, () => false), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await keyv.disconnect();
    },
  };
}
