import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** What a person sees in the terminal: `./run.sh` and `npm run demo` as processes, their output read whole. */

const main = new URL('../src/main.ts', import.meta.url).pathname;
const root = new URL('../../../', import.meta.url).pathname;

interface Finished {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: string | null;
}

/** Starts the demo in `cwd` and waits for its banner. */
async function startDemoProcess(cwd: string, env: Record<string, string>, args: string[] = []) {
  const { LOG_LEVEL: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, [main, ...args], {
    cwd,
    env: { ...inherited, PLAYGROUND_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Ctrl-C stops everything.')) resolve();
    });
    child.once('exit', () => reject(new Error(`the demo exited before its banner:\n${stdout}\n${stderr}`)));
  });
  return {
    banner: stdout,
    /** Stops it as Ctrl-C does. */
    async stop(): Promise<Finished> {
      child.kill('SIGINT');
      const [code, signal] = (await exited) as [number | null, string | null];
      return { stdout, stderr, code, signal };
    },
  };
}

/** Runs the demo in `cwd` until its banner is out, then stops it as Ctrl-C does. */
async function runDemo(cwd: string, env: Record<string, string>): Promise<Finished> {
  return (await startDemoProcess(cwd, env)).stop();
}

/** Runs the demo in `cwd` to its end, without stopping it. */
async function runToEnd(cwd: string, args: string[]): Promise<Finished> {
  const child = spawn(process.execPath, [main, ...args], {
    cwd,
    env: { ...process.env, PLAYGROUND_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
  return { stdout, stderr, code, signal };
}

/** The files a second start could delete or replace: which there are, and the lock and the key. */
function snapshot(dir: string) {
  return {
    files: readdirSync(dir).filter((name) => !name.endsWith('.partial')),
    lock: readFileSync(join(dir, 'demo.lock'), 'utf8'),
    key: readFileSync(join(dir, 'demo-session.key'), 'utf8'),
  };
}

describe("the demo's console", { timeout: 60_000 }, () => {
  it("shows the banner first and alone, with the page's address only; the bot's log goes to a file", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'faultline-console-'));
    const { stdout, stderr, code, signal } = await runDemo(cwd, {});
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stderr).toBe('');
    expect(stdout.startsWith('Faultline demo:')).toBe(true);
    expect(stdout.split('\n').filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
    const urls = stdout.match(/\w+:\/\/\S+/g) ?? [];
    expect(urls).toHaveLength(1);
    expect(urls[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(stdout).toContain('data/demo.log');
    const log = readFileSync(join(cwd, 'data', 'demo.log'), 'utf8');
    expect(log).toContain('"msg":"Faultline is running"');
    expect(log).toContain('"msg":"stopped"');
  });

  it("prints the bot's JSON log lines when LOG_LEVEL asks for them", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'faultline-console-'));
    const { stdout, code, signal } = await runDemo(cwd, { LOG_LEVEL: 'info' });
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stdout).toContain('"msg":"Faultline is running"');
    expect(stdout).not.toContain('data/demo.log');
    expect(existsSync(join(cwd, 'data', 'demo.log'))).toBe(false);
  });

  it('takes the settings of the environment: PRESENCE_MINUTES=1 asks after a minute', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'faultline-console-'));
    const { stdout, code } = await runDemo(cwd, { PRESENCE_MINUTES: '1' });
    expect(code).toBe(0);
    expect(stdout).toContain(
      'an attack running 1 minute asks whoever watches it "Still watching?" (PRESENCE_MINUTES=1;',
    );
  });

  it('says where the demo already runs when started again, and leaves it alone', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'faultline-console-'));
    const first = await startDemoProcess(cwd, {});
    try {
      const url = first.banner.match(/http:\/\/\S+/)?.[0];
      const before = snapshot(join(cwd, 'data'));
      for (const args of [[], ['--fresh']]) {
        const second = await runToEnd(cwd, args);
        expect(second).toEqual({
          stdout: '',
          stderr: `A demo is already running at ${url}: open that page, or stop that demo (Ctrl-C where it runs) before starting another.\n`,
          code: 1,
          signal: null,
        });
      }
      expect(snapshot(join(cwd, 'data'))).toEqual({ ...before, files: expect.arrayContaining(before.files) });
      expect((await fetch(url!)).status).toBe(200);
    } finally {
      expect(await first.stop()).toMatchObject({ code: 0, stderr: '' });
    }
    // Stopped, it leaves the folder to the next start.
    const again = await startDemoProcess(cwd, {});
    expect((await again.stop()).code).toBe(0);
  });

  it('refuses an option it does not know, and names --fresh', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'faultline-console-'));
    const { stderr, code } = await runToEnd(cwd, ['--frsh']);
    expect(code).toBe(2);
    expect(stderr).toContain('./run.sh --fresh starts it from the seed');
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });
});

/** A copy of run.sh in a directory of its own, with an npm that only says how it was called. */
function runShCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-run-'));
  mkdirSync(join(dir, 'scripts'));
  mkdirSync(join(dir, 'bin'));
  copyFileSync(join(root, 'run.sh'), join(dir, 'run.sh'));
  copyFileSync(join(root, 'scripts', 'ensure-node.sh'), join(dir, 'scripts', 'ensure-node.sh'));
  writeFileSync(join(dir, 'package-lock.json'), '{}\n');
  writeFileSync(join(dir, 'bin', 'npm'), '#!/usr/bin/env bash\necho "npm $*"\n');
  chmodSync(join(dir, 'bin', 'npm'), 0o755);
  return dir;
}

async function runSh(dir: string, args: string[]): Promise<Finished> {
  const { SLACK_BOT_TOKEN: _token, ...inherited } = process.env;
  const child = spawn('bash', [join(dir, 'run.sh'), ...args], {
    cwd: dir,
    env: { ...inherited, PATH: `${join(dir, 'bin')}:${process.env['PATH'] ?? ''}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
  return { stdout, stderr, code, signal };
}

describe('./run.sh', () => {
  it.each([['--help'], ['-h'], ['help']])('%s says what run.sh itself does, and runs nothing', async (flag) => {
    const { stdout, stderr, code } = await runSh(runShCopy(), [flag]);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: ./run.sh');
    expect(stdout).toContain('./run.sh test');
    expect(`${stdout}${stderr}`).not.toContain('npm run');
    expect(`${stdout}${stderr}`).not.toContain('npm ci');
  });

  it('says it is installing dependencies before it does, then starts the demo with nothing in front of its banner', async () => {
    const { stdout, stderr, code } = await runSh(runShCopy(), []);
    expect(code).toBe(0);
    expect(stderr).toBe('Installing dependencies (about a minute)…\nnpm ci --no-audit --no-fund --loglevel=error\n');
    expect(stdout).toBe('npm run --silent demo --\n');
  });

  it('passes --fresh on to the demo', async () => {
    const dir = runShCopy();
    await runSh(dir, []);
    const { stdout, code } = await runSh(dir, ['--fresh']);
    expect(code).toBe(0);
    expect(stdout).toBe('npm run --silent demo -- --fresh\n');
  });
});
