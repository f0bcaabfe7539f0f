/**
 * What the demo keeps in its data directory from one run to the next, beside the bot's store
 * (`demo.db`): the page's conversations (`demo-slack.json`) and the simulated platform's sessions,
 * attacks and tickets (`demo-platform.json`), so that logins, cards, game days and threads still
 * mean something after a restart. `demo.lock` says which process runs on the directory, so that a
 * second start leaves a running demo alone.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConversationHistory, FakeSlack } from '@faultline/fake-slack';
import type { SimState, Simulator } from '@faultline/platform-sim';

export const STORE_FILE = 'demo.db';
const HISTORY_FILE = 'demo-slack.json';
const PLATFORM_FILE = 'demo-platform.json';
const LOCK_FILE = 'demo.lock';

type Attack = SimState['attacks'] extends Map<string, infer A> ? A : never;
type Session = SimState['sessions'] extends Map<string, infer S> ? S : never;

/** What the simulator must remember for the bot's store to still refer to something. */
export interface PlatformMemory {
  sessions: Session[];
  attacks: Attack[];
  trackerIssues: SimState['trackerIssues'];
}

/** What an earlier run left, or nothing for a first (or --fresh) start. */
export interface SavedDemo {
  history?: ConversationHistory;
  platform?: PlatformMemory;
}

/** A demo runs on this data directory already: its page is where to go. */
export class DemoRunningError extends Error {
  constructor(url: string | undefined) {
    super(
      url === undefined
        ? 'A demo is already starting from this folder: wait for its banner, or stop it (Ctrl-C where it runs) before starting another.'
        : `A demo is already running at ${url}: open that page, or stop that demo (Ctrl-C where it runs) before starting another.`,
    );
    this.name = 'DemoRunningError';
  }
}

interface Lock {
  pid: number;
  url?: string;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/** Written whole or not at all, readable by its owner only: platform sessions are in it. */
async function writeText(file: string, text: string): Promise<void> {
  const partial = `${file}.partial`;
  await writeFile(partial, text, { mode: 0o600 });
  await rename(partial, file);
}

/**
 * Takes the data directory for this process, or throws {@link DemoRunningError} when another demo
 * (or this process's) runs on it. A lock whose process is gone (a demo killed outright) is taken over.
 */
export async function claimDataDir(
  dataDir: string,
): Promise<{ announce(url: string): Promise<void>; release(): Promise<void> }> {
  const file = join(dataDir, LOCK_FILE);
  const mine: Lock = { pid: process.pid };
  for (;;) {
    try {
      await writeFile(file, JSON.stringify(mine), { mode: 0o600, flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const other = await readJson<Lock>(file);
      if (other !== undefined && isRunning(other.pid)) throw new DemoRunningError(other.url);
      await rm(file, { force: true });
    }
  }
  return {
    announce: (url) => writeText(file, JSON.stringify({ ...mine, url })),
    release: () => rm(file, { force: true }),
  };
}

/** What the last run kept; with `fresh`, forgets it first (the session key stays). */
export async function loadSaved(dataDir: string, fresh: boolean): Promise<SavedDemo> {
  if (fresh) {
    for (const file of [
      STORE_FILE,
      `${STORE_FILE}-journal`,
      `${STORE_FILE}-wal`,
      `${STORE_FILE}-shm`,
      HISTORY_FILE,
      PLATFORM_FILE,
    ])
      await rm(join(dataDir, file), { force: true });
    return {};
  }
  const history = await readJson<ConversationHistory>(join(dataDir, HISTORY_FILE));
  const platform = await readJson<PlatformMemory>(join(dataDir, PLATFORM_FILE));
  return { ...(history !== undefined ? { history } : {}), ...(platform !== undefined ? { platform } : {}) };
}

/** Gives a freshly seeded simulator back what an earlier run's platform held. */
export function restorePlatform(sim: Simulator, memory: PlatformMemory): void {
  const { state } = sim;
  for (const session of memory.sessions)
    if (state.users.has(session.userId)) state.sessions.set(session.token, session);
  for (const attack of [...memory.attacks].sort((a, b) => a.seq - b.seq)) {
    if (!state.teams.has(attack.teamId) || state.attacks.has(attack.guid)) continue;
    const { seq: _seq, executionIds: _executionIds, ...rest } = attack;
    state.addAttack(rest);
  }
  const filed = new Set(state.trackerIssues.map((issue) => issue.key));
  state.trackerIssues.push(...memory.trackerIssues.filter((issue) => !filed.has(issue.key)));
}

/** Keeps what the page shows and what the platform holds for the next start, each time writing what changed. */
export function demoKeeper(dataDir: string, fake: FakeSlack, sim: Simulator): () => Promise<void> {
  const written = new Map<string, string>();
  const keep = async (file: string, value: unknown) => {
    const text = JSON.stringify(value);
    if (written.get(file) === text) return;
    await writeText(join(dataDir, file), text);
    written.set(file, text);
  };
  const save = async () => {
    const { state } = sim;
    const platform: PlatformMemory = {
      sessions: [...state.sessions.values()],
      attacks: [...state.attacks.values()],
      trackerIssues: state.trackerIssues,
    };
    await keep(HISTORY_FILE, fake.history());
    await keep(PLATFORM_FILE, platform);
  };
  // One save at a time: the last one asked for writes after any still under way.
  let last: Promise<void> = Promise.resolve();
  return () => (last = last.catch(() => undefined).then(save));
}
