// The image's production install, without a container engine: the files the Dockerfile copies
// (as the .dockerignore lets them into the build context) go to a temporary folder, the
// Dockerfile's own `npm ci` installs there, and the bot starts with the image's CMD, ENV and
// HEALTHCHECK. npm ci compiles sqlite3 when no prebuilt binary can be fetched: minutes, not seconds.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextFilter, copiedFromContext, execForm, readDockerfile, root, type Instruction } from './dockerfile.ts';
import { freePort } from '../support/ports.ts';

const installMinutes = 15;
const dockerfile = readDockerfile();
const runtime = dockerfile.stages.at(-1)!;
let app: string;

/** The context paths the image copies, walked file by file through the .dockerignore. */
function copyBuildContext(into: string): void {
  const inContext = contextFilter();
  const walk = (path: string): void => {
    if (!inContext(path)) return;
    const full = join(root, path);
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full)) walk(join(path, entry));
    } else {
      mkdirSync(dirname(join(into, path)), { recursive: true });
      cpSync(full, join(into, path));
    }
  };
  for (const source of copiedFromContext(dockerfile)) walk(source);
}

function installCommand(): string[] {
  const run = dockerfile.stages
    .flatMap((s) => s.instructions)
    .find((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.rest))!;
  // One plain command, so running it here without a shell runs what the image runs.
  expect(run.rest).toMatch(/^npm ci( --[a-z-]+(=\S+)?)*$/);
  return run.rest.split(/\s+/);
}

function imageEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of runtime.instructions.filter((i: Instruction) => i.keyword === 'ENV')) {
    for (const [, name, value] of i.rest.matchAll(/(\w+)=(\S+)/g)) env[name!] = value!;
  }
  return env;
}

/** Runs `node …` from the image with this machine's node, in the installed copy. */
function command(argv: string[]): [string, string[]] {
  expect(argv[0]).toBe('node');
  return [process.execPath, argv.slice(1)];
}

beforeAll(() => {
  app = mkdtempSync(join(tmpdir(), 'faultline-image-'));
  copyBuildContext(app);
  const [npm, ...args] = installCommand();
  const installed = spawnSync(npm!, args, {
    cwd: app,
    env: process.env,
    encoding: 'utf8',
    timeout: installMinutes * 60_000,
  });
  if (installed.status !== 0) throw new Error(`${installed.error ?? ''}\n${installed.stdout}\n${installed.stderr}`);
}, installMinutes * 60_000);

afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

describe('the production install', () => {
  it('holds only the files the image copies, and no development dependency', () => {
    expect(readdirSync(app).sort()).toEqual(['node_modules', 'package-lock.json', 'package.json', 'src']);
    for (const tool of ['vitest', 'typescript', 'kubernetes-models'])
      expect(existsSync(join(app, 'node_modules', tool)), tool).toBe(false);
    expect(existsSync(join(app, 'node_modules/@slack/bolt'))).toBe(true);
  });

  it("starts the bot with the image's command, passes its health check, and exits 0 on SIGTERM", async () => {
    const port = await freePort();
    const closed = await freePort();
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      ...imageEnvironment(),
      PORT: String(port),
      SLACK_BOT_TOKEN: 'xoxb-image-test',
      SLACK_SIGNING_SECRET: 'image-test-secret',
      SESSION_KEY: randomBytes(32).toString('base64'),
      // Nothing listens on either: the bot must start and stay healthy without them.
      PLATFORM_API_URL: `http://127.0.0.1:${closed}/v1`,
      SLACK_API_URL: `http://127.0.0.1:${closed}/api/`,
    };
    expect(env.NODE_ENV).toBe('production');

    const [node, args] = command(execForm(runtime.instructions.findLast((i) => i.keyword === 'CMD')!.rest)!);
    let output = '';
    const bot = spawn(node, args, { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    bot.stdout.on('data', (chunk) => (output += String(chunk)));
    bot.stderr.on('data', (chunk) => (output += String(chunk)));
    const exited = new Promise<number | null>((resolve) => bot.on('exit', (code) => resolve(code)));
    const healthcheck = command(
      execForm(runtime.instructions.findLast((i) => i.keyword === 'HEALTHCHECK')!.rest.replace(/^CMD /, ''))!,
    );
    const check = () => spawnSync(healthcheck[0], healthcheck[1], { env, timeout: 10_000 }).status;
    try {
      const base = `http://127.0.0.1:${port}`;
      let health: number | undefined;
      let running = true;
      void exited.then(() => (running = false));
      for (let attempt = 0; attempt < 600 && running && health === undefined; attempt++) {
        health = await fetch(`${base}/healthz`).then(
          (r) => r.status,
          () => undefined,
        );
        if (health === undefined) await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 50))]);
      }
      expect(health, output).toBe(200);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      expect(check()).toBe(0);

      bot.kill('SIGTERM');
      expect(await exited, output).toBe(0);
      expect(output).toContain('stopped');
      // With the bot gone the same check fails, so the passing one above meant something.
      expect(check()).not.toBe(0);
    } finally {
      bot.kill('SIGKILL');
    }
  }, 60_000);
});
