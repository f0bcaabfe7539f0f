import { randomUUID } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { StoreUnavailableError } from './errors.ts';
import type { KeyValueStore, Update } from './keyValue.ts';
import { decodeKeyv } from './redisStore.ts';

/** Rows read per query while listing, so a long listing never holds a statement open across awaits. */
const pageSize = 500;
/** How often rows past their expiry are deleted; reads already skip them. */
const purgeEveryMs = 60_000;

/** The smallest string above every string that starts with `prefix` (prefixes here are ASCII). */
function prefixEnd(prefix: string): string {
  if (!prefix) return '\u{10FFFF}';
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/**
 * The store over Node's built-in SQLite: one table keyed by (namespace, key), so listing a prefix
 * is a range over the primary key and costs what it returns, whatever else is stored. `file`
 * `:memory:` gives the memory store of the tests. Claims are rows of their own table, so they
 * survive a restart like every other write.
 */
export function createSqliteStore(file: string, namespace: string, kind: 'sqlite' | 'memory'): KeyValueStore {
  const db = open(file, namespace);
  const now = () => Date.now();
  const statements = {
    get: db.prepare(
      'SELECT value FROM entries WHERE namespace = ? AND key = ? AND (expires_at IS NULL OR expires_at > ?)',
    ),
    set: db.prepare(`INSERT INTO entries (namespace, key, value, expires_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`),
    delete: db.prepare('DELETE FROM entries WHERE namespace = ? AND key = ? RETURNING expires_at'),
    firstPage: db.prepare(`SELECT key, value FROM entries WHERE namespace = ? AND key >= ? AND key < ?
      AND (expires_at IS NULL OR expires_at > ?) ORDER BY key LIMIT ${pageSize}`),
    nextPage: db.prepare(`SELECT key, value FROM entries WHERE namespace = ? AND key > ? AND key < ?
      AND (expires_at IS NULL OR expires_at > ?) ORDER BY key LIMIT ${pageSize}`),
    purge: db.prepare('DELETE FROM entries WHERE expires_at <= ?'),
    purgeClaims: db.prepare('DELETE FROM claims WHERE expires_at <= ?'),
    // Taken when free or lapsed, renewed when the same owner holds it: one statement, so no other
    // connection acts between the check and the change. A row comes back only when it was written.
    claim: db.prepare(`INSERT INTO claims (namespace, key, owner, expires_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (namespace, key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
      WHERE claims.expires_at <= ? OR claims.owner = excluded.owner RETURNING owner`),
    release: db.prepare(
      'DELETE FROM claims WHERE namespace = ? AND key = ? AND owner = ? AND expires_at > ? RETURNING owner',
    ),
    // A window that ended starts again at one: one statement, so a burst never loses a count.
    increment: db.prepare(`INSERT INTO counters (namespace, key, count, ends_at) VALUES (?, ?, 1, ?)
      ON CONFLICT (namespace, key) DO UPDATE SET
        count = CASE WHEN counters.ends_at <= ? THEN 1 ELSE counters.count + 1 END,
        ends_at = CASE WHEN counters.ends_at <= ? THEN excluded.ends_at ELSE counters.ends_at END
      RETURNING count, ends_at`),
    counter: db.prepare('SELECT count, ends_at FROM counters WHERE namespace = ? AND key = ? AND ends_at > ?'),
    purgeCounters: db.prepare('DELETE FROM counters WHERE ends_at <= ?'),
    ping: db.prepare('SELECT 1'),
  };
  const guarded = <T>(work: () => T): T => {
    try {
      return work();
    } catch (error) {
      throw new StoreUnavailableError(kind === 'memory' ? 'memory' : 'SQLite', { cause: error });
    }
  };
  const expiry = (ttlMs: number | undefined) => (ttlMs === undefined ? null : now() + Math.max(1, Math.round(ttlMs)));
  const purge = setInterval(() => {
    try {
      statements.purge.run(now());
      statements.purgeClaims.run(now());
      statements.purgeCounters.run(now() - 60_000);
    } catch {
      // A busy or failing database: the next purge tries again, and reads skip expired rows anyway.
    }
  }, purgeEveryMs);
  purge.unref();

  return {
    kind,
    async get<T>(key: string) {
      const row = guarded(() => statements.get.get(namespace, key, now())) as { value: string } | undefined;
      return row ? (JSON.parse(row.value) as T) : undefined;
    },
    async set<T>(key: string, value: T, ttlMs?: number) {
      const text = JSON.stringify(value);
      if (text === undefined) throw new TypeError(`Cannot store ${typeof value} under ${key.split(':')[0]}`);
      guarded(() => statements.set.run(namespace, key, text, expiry(ttlMs)));
    },
    // One transaction, and `change` is synchronous: neither this process nor another on the same
    // file writes between the read and the write.
    async update<T>(key: string, change: (current: T | undefined) => Update<T> | undefined) {
      guarded(() => db.exec('BEGIN IMMEDIATE'));
      try {
        const row = guarded(() => statements.get.get(namespace, key, now())) as { value: string } | undefined;
        const current = row ? (JSON.parse(row.value) as T) : undefined;
        const next = change(current);
        if (!next) return current;
        guarded(() => {
          for (const entry of [{ key, value: next.value, ttlMs: next.ttlMs }, ...(next.beside ?? [])])
            if (entry.value === undefined) statements.delete.get(namespace, entry.key);
            else statements.set.run(namespace, entry.key, JSON.stringify(entry.value), expiry(entry.ttlMs));
          db.exec('COMMIT');
        });
        return next.value;
      } finally {
        if (db.isTransaction) db.exec('ROLLBACK');
      }
    },
    async delete(key: string) {
      const row = guarded(() => statements.delete.get(namespace, key)) as { expires_at: number | null } | undefined;
      return row !== undefined && (row.expires_at === null || row.expires_at > now());
    },
    // Rows, not process memory: a claim outlives a crash, so a restarted process never takes
    // again what the one before it had taken (a Start already clicked, an approval decided).
    async claim(key: string, ttlMs: number, owner = randomUUID()) {
      const at = now();
      const row = guarded(() => statements.claim.get(namespace, key, owner, at + Math.max(1, Math.round(ttlMs)), at));
      return row !== undefined;
    },
    async release(key: string, owner: string) {
      return guarded(() => statements.release.get(namespace, key, owner, now())) !== undefined;
    },
    async increment(key: string, ttlMs: number, at: number) {
      const row = guarded(() =>
        statements.increment.get(namespace, key, at + Math.max(1, Math.round(ttlMs)), at, at),
      ) as { count: number; ends_at: number };
      return { count: row.count, endsAt: row.ends_at };
    },
    async counter(key: string, at: number) {
      const row = guarded(() => statements.counter.get(namespace, key, at)) as
        | { count: number; ends_at: number }
        | undefined;
      return row ? { count: row.count, endsAt: row.ends_at } : undefined;
    },
    async *entries<T>(prefix: string): AsyncIterable<[string, T]> {
      const end = prefixEnd(prefix);
      let rows = guarded(() => statements.firstPage.all(namespace, prefix, end, now())) as {
        key: string;
        value: string;
      }[];
      while (rows.length) {
        for (const row of rows) yield [row.key, JSON.parse(row.value) as T];
        if (rows.length < pageSize) return;
        const last = rows.at(-1)!.key;
        rows = guarded(() => statements.nextPage.all(namespace, last, end, now())) as { key: string; value: string }[];
      }
    },
    async ping() {
      try {
        statements.ping.get();
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      clearInterval(purge);
      if (db.isOpen) db.close();
    },
  };
}

function open(file: string, namespace: string): DatabaseSync {
  if (file !== ':memory:') ownerOnly(file);
  const db = new DatabaseSync(file);
  // WAL lets readers go on while a write commits; NORMAL syncs at checkpoints, which loses no
  // committed write when the process dies (only, at worst, the last ones on a power cut).
  db.exec(`
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA busy_timeout = 5000;
    CREATE TABLE IF NOT EXISTS entries (
      namespace TEXT NOT NULL,
      key TEXT NOT NULL,
      value TEXT NOT NULL,
      expires_at INTEGER,
      PRIMARY KEY (namespace, key)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS entries_expiry ON entries (expires_at) WHERE expires_at IS NOT NULL;
    CREATE TABLE IF NOT EXISTS claims (
      namespace TEXT NOT NULL,
      key TEXT NOT NULL,
      owner TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      PRIMARY KEY (namespace, key)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS counters (
      namespace TEXT NOT NULL,
      key TEXT NOT NULL,
      count INTEGER NOT NULL,
      ends_at INTEGER NOT NULL,
      PRIMARY KEY (namespace, key)
    ) WITHOUT ROWID;
  `);
  importKeyvRows(db, namespace);
  return db;
}

/**
 * The file holds sessions: it is made readable by its owner only before SQLite opens it, and SQLite
 * gives its WAL, shared-memory and journal files the mode of the database file. A file (or one of
 * those) left by an older version is tightened the same way.
 */
function ownerOnly(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
  for (const made of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`])
    if (existsSync(made)) chmodSync(made, 0o600);
}

/**
 * Moves this namespace's rows out of the `keyv` table that @keyv/sqlite kept (key
 * `<namespace>:<key>`, value in Keyv's layout) into `entries`, once: an upgrade keeps every
 * session, card and game day. Rows already past their expiry are dropped on the way.
 */
function importKeyvRows(db: DatabaseSync, namespace: string): void {
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'keyv'").get()) return;
  const start = `${namespace}:`;
  const rows = db.prepare('SELECT key, value FROM keyv WHERE key >= ? AND key < ?').all(start, prefixEnd(start)) as {
    key: string;
    value: string | null;
  }[];
  if (!rows.length) return;
  const insert = db.prepare('INSERT OR IGNORE INTO entries (namespace, key, value, expires_at) VALUES (?, ?, ?, ?)');
  const remove = db.prepare('DELETE FROM keyv WHERE key = ?');
  const now = Date.now();
  db.exec('BEGIN IMMEDIATE');
  try {
    for (const row of rows) {
      const record = row.value ? decodeKeyv(row.value) : undefined;
      const live = record && record.value !== undefined && (record.expires === undefined || record.expires > now);
      if (live)
        insert.run(namespace, row.key.slice(start.length), JSON.stringify(record.value), record.expires ?? null);
      remove.run(row.key);
    }
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
