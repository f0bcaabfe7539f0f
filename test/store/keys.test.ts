import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.ts';

const root = resolve(import.meta.dirname, '../..');
const table = 'src/store/keys.ts';

/** Every TypeScript module under src but the table, with its text. */
const modules = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
  .map((entry) => relative(root, join(entry.parentPath, entry.name)))
  .filter((file) => file !== table)
  .map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }));

interface StoreCall {
  where: string;
  method: string;
  args: string[];
}

/**
 * The arguments of the call whose `(` is at `open`, split at its top-level commas. Strings and
 * template literals are skipped whole (with the code inside `${}`), so a comma in them splits nothing.
 */
function callArguments(text: string, open: number): string[] {
  const args: string[] = [];
  const closers: string[] = [];
  let start = open + 1;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    const inTemplate = closers.at(-1) === '`';
    if (inTemplate) {
      if (c === '\\') i++;
      else if (c === '`') closers.pop();
      else if (c === '$' && text[i + 1] === '{') {
        closers.push('}');
        i++;
      }
      continue;
    }
    if (c === "'" || c === '"') {
      for (i++; text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '`') closers.push('`');
    else if (c === '(' || c === '[' || c === '{') closers.push({ '(': ')', '[': ']', '{': '}' }[c]);
    else if (c === ')' || c === ']' || c === '}') {
      closers.pop();
      if (closers.length === 0) {
        args.push(text.slice(start, i).trim());
        return args.filter(Boolean);
      }
    } else if (c === ',' && closers.length === 1) {
      args.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  throw new Error(`unclosed call at ${open}`);
}

/** The leases take their key and lifetime from their callers, whose calls are checked instead. */
const leases = 'src/store/leases.ts';

/**
 * Every call on the store in src: `store.get(…)`, `store.update<CardRecord>(…)`, `this.#store.claim(…)`,
 * `deps.store\n.release(…)`; and every lease or lock taken, `withLock(store, key, ttlMs, …)`, as the
 * claim it makes.
 */
function storeCalls(): StoreCall[] {
  return modules
    .filter(({ file }) => file !== leases)
    .flatMap(({ file, text }) => [
      ...[
        ...text.matchAll(/\bstore\s*\.\s*(get|set|update|delete|claim|release|entries|increment|counter)\b\s*(<)?/g),
      ].map((match) => {
        let open = match.index + match[0].length;
        if (match[2]) {
          // Skip the type arguments: `entries<{ guard: Guard; addedAt: number }>(`.
          for (let depth = 1; depth > 0; open++) depth += text[open] === '<' ? 1 : text[open] === '>' ? -1 : 0;
        }
        open = text.indexOf('(', open);
        const line = text.slice(0, match.index).split('\n').length;
        return { where: `${file}:${line}`, method: match[1]!, args: callArguments(text, open) };
      }),
      ...[...text.matchAll(/\b(?:takeLease|holdLease|withLock)\s*\(/g)].map((match) => {
        const line = text.slice(0, match.index).split('\n').length;
        const args = callArguments(text, match.index + match[0].length - 1).slice(1);
        return { where: `${file}:${line}`, method: 'claim', args };
      }),
    ]);
}

/** True when `name` is bound in the file straight from the table: `const key = keys.…` or `key: keys.…`. */
const boundFromTable = (text: string, name: string) => new RegExp(`\\b${name}\\s*[=:]\\s*keys\\.`).test(text);

/** A key argument built from the table: `keys.card.key(guid)`, `keys.live.prefix`, or a name bound to one. */
function keyFromTable(argument: string, text: string): boolean {
  if (/^keys\.\w+\.\w+\b/.test(argument)) return true;
  const name = /^(?:[\w#]+\.)*([\w#]+)$/.exec(argument)?.[1];
  return name !== undefined && boundFromTable(text, name);
}

const calls = storeCalls();
const textOf = (where: string) => modules.find(({ file }) => where.startsWith(`${file}:`))!.text;

describe('the store key table', () => {
  it('finds the store calls it checks, in the modules that keep state', () => {
    expect(calls.length).toBeGreaterThan(100);
    const files = new Set(calls.map((call) => call.where.split(':')[0]));
    for (const file of [
      'src/attacks/cards.ts',
      'src/store/sessions.ts',
      'src/gamedays/gamedays.ts',
      'src/jobs/scheduler.ts',
    ])
      expect(files).toContain(file);
    expect(
      calls.find((call) => call.where.startsWith('src/attacks/cards.ts') && call.method === 'update')?.args[0],
    ).toBe('keys.card.key(guid)');
  });

  it('has every store call build its key from the table', () => {
    const elsewhere = calls
      .filter((call) => !keyFromTable(call.args[0] ?? '', textOf(call.where)))
      .map((call) => `${call.where} ${call.method}(${call.args[0]})`);
    expect(elsewhere).toEqual([]);
  });

  it('has every write state its lifetime, and takes it from the table', () => {
    const ttlArgument = (call: StoreCall) => (call.method === 'set' ? call.args[2] : call.args[1]);
    const writes = calls.filter((call) => ['set', 'claim', 'increment'].includes(call.method));
    expect(writes.length).toBeGreaterThan(40);
    const unstated = writes.filter((call) => ttlArgument(call) === undefined).map((call) => call.where);
    expect(unstated).toEqual([]);
    // A number written at the call, or a constant of the module's own, is a lifetime kept outside the table.
    const ownLifetime = writes
      .filter((call) => {
        const ttl = ttlArgument(call) ?? '';
        const name = /^[\w#]+$/.test(ttl) ? ttl : undefined;
        return /\b\d/.test(ttl) || (name && new RegExp(`\\b${name}\\s*=\\s*[\\d(]`).test(textOf(call.where)));
      })
      .map((call) => `${call.where} ${ttlArgument(call)}`);
    expect(ownLifetime).toEqual([]);
  });

  it('leaves no key prefix written out elsewhere in src', () => {
    const literals = modules.flatMap(({ file, text }) =>
      [...text.matchAll(/[`'"]([a-z][a-z-]*:)/g)]
        .filter((match) => Object.values(keys).some((kind) => kind.prefix.startsWith(match[1]!)))
        .map((match) => `${file}:${text.slice(0, match.index).split('\n').length} ${match[0]}`),
    );
    expect(literals).toEqual([]);
  });

  it('lists no prefix that no module uses', () => {
    // A module uses a kind by reading it (`keys.name.key(…)`) or by handing it on (`counter(keys.name, …)`).
    const used = (name: string) => new RegExp(`\\bkeys\\.${name}\\b`);
    const unused = Object.keys(keys).filter((name) => !modules.some(({ text }) => used(name).test(text)));
    expect(unused).toEqual([]);
  });

  it('says of every kind what it holds, and gives each a prefix of its own', () => {
    const kinds = Object.values(keys);
    for (const kind of kinds) expect(kind.holds.length).toBeGreaterThan(20);
    // A scan of one prefix must never return the keys of another.
    const overlapping = kinds.flatMap((a) =>
      kinds.filter((b) => a !== b && b.prefix.startsWith(a.prefix)).map((b) => `${a.prefix} ${b.prefix}`),
    );
    expect(overlapping).toEqual([]);
  });

  it('keeps the keys data was stored under before (a renamed key loses what is kept under it)', () => {
    const person = { workspaceId: 'E1', userId: 'U1' };
    expect(keys.session.key(person)).toBe('session:E1:U1');
    expect(keys.reader.key('T1', person)).toBe('reader:T1:E1:U1');
    expect(keys.freeze.key('all')).toBe('freeze:all');
    expect(keys.freeze.key('team', 'T1')).toBe('freeze:team:T1');
    expect(keys.freezeNotice.key('all', undefined, 'S', 'halt:G')).toBe('freeze-notice:all::S:halt:G');
    expect(keys.gameDayGuard.list('D')).toBe('guards:gameday:D');
    expect(keys.gameDayGuard.key('D', 'a:M')).toBe('guards:gameday:D:a:M');
    expect(keys.attackGuards.key('G')).toBe('guards:attack:G');
    expect(Object.values(keys).map((kind) => kind.prefix)).toEqual([
      'session:',
      'team:',
      'reader:',
      'login-link:',
      'login-modal:',
      'login-link-opened:',
      'sso-login:',
      'sso-login-used:',
      'login-attempt:',
      'login-failures:',
      'login-failures-address:',
      'login-bad-links:',
      'password-resets:',
      'password-resets-email:',
      'login-link-profile:',
      'login-page-loads:',
      'sso-starts:',
      'login-page-loads-address:',
      'sso-starts-address:',
      'login-address-over:',
      'expiry-warned:',
      'pending:',
      'start:',
      'start-intent:',
      'start-lease:',
      'delivery:',
      'step-run:',
      'step-open:',
      'step-lease:',
      'step-started:',
      'step-wait:',
      'step-wait-done:',
      'card:',
      'card-message:',
      'card-starting:',
      'live:',
      'unsent-update:',
      'halt-noted:',
      'halt-check:',
      'home-halt:',
      'halt-receipt:',
      'presence:',
      'note-lock:',
      'list-page:',
      'ticket-draft:',
      'ticket-filed:',
      'watch:',
      'watch-card:',
      'watch-paused:',
      'poll:',
      'job:',
      'approval:',
      'approval-message:',
      'approval-closed:',
      'approval-decided:',
      'freeze:',
      'freeze-notice:',
      'freeze-orphaned:',
      'freeze-sweep:',
      'freeze-halted:',
      'guards:attack:',
      'guards:gameday:',
      'guard-reading:',
      'guard-read:',
      'guard-trip:',
      'gameday:',
      'gameday-start:',
      'gameday-event:',
      'gameday-attack:',
      'gameday-guards-shown:',
      'gameday-end:',
      'gameday-ended:',
      'gameday-report-due:',
      'gameday-failed:',
      'saved-attack:',
      'saved-attack-lock:',
      'saved-attack-version:',
      'saved-attack-seen:',
      'gameday-plan:',
      'gameday-plan-lock:',
      'gameday-step-attack:',
      'gameday-step-question:',
      'gameday-step-answer:',
      'mcp-request:',
      'mcp-calls:',
    ]);
  });
});
