import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '@faultline/platform-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator();
  dir = mkdtempSync(join(tmpdir(), 'faultline-pool-'));
  writeFileSync(join(dir, 'sim-ca.pem'), sim.ca);
});
afterAll(async () => {
  await sim?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const client = new URL('../../src/client/index.ts', import.meta.url).href;

/**
 * Runs `body` (module statements, with `platform`, `session`, `api` and `team` in scope) through
 * the client as the bot builds it (its own connection pools, the platform's certificate trusted as
 * production trusts a private CA) in a process of its own, and answers the JSON it printed.
 */
async function runClient<T>(body: string, clientOptions = '', user: 'owner' | 'solo' = 'owner'): Promise<T> {
  const { email, password } = sim.seed.users[user];
  const script = `
    import { createPlatformClient } from ${JSON.stringify(client)};
    const platform = createPlatformClient({ baseUrl: ${JSON.stringify(sim.url)}, ${clientOptions} });
    const session = await platform.auth.login({ email: ${JSON.stringify(email)}, password: ${JSON.stringify(password)} });
    const team = ${JSON.stringify(sim.seed.teams.platform.id)};
    const api = platform.as({ header: session.header, teamId: team });
    ${body}
    await platform.close();
  `;
  const child = spawn(
    process.execPath,
    ['--input-type=module', '--disable-warning=ExperimentalWarning', '-e', script],
    {
      env: { PATH: process.env.PATH ?? '', NODE_EXTRA_CA_CERTS: join(dir, 'sim-ca.pem') },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  expect(code).toBe(0);
  return JSON.parse(output) as T;
}

/** Runs `calls` reads at once; answers how many TLS connections they opened and how many succeeded. */
function readAtOnce(calls: number): Promise<{ connections: number; succeeded: number }> {
  return runClient(
    `
    import { subscribe } from 'node:diagnostics_channel';
    let connections = 0;
    subscribe('undici:client:connected', () => connections++);
    const results = await Promise.allSettled(Array.from({ length: ${calls} }, () => api.attacks.listActive()));
    console.log(JSON.stringify({ connections, succeeded: results.filter((r) => r.status === 'fulfilled').length }));
    `,
    '',
    'solo',
  );
}

describe("the platform client's connections", () => {
  it('stay a handful however many calls wait, and every call is still answered', async () => {
    // Each read held a while, so that the calls overlap and a pool without a bound opens one each.
    sim.faults.inject({ kind: 'latency', ms: 200, path: '/attacks/active', times: Infinity });
    try {
      const { connections, succeeded } = await readAtOnce(48);
      expect(succeeded).toBe(48);
      expect(connections).toBeGreaterThan(0);
      expect(connections).toBeLessThanOrEqual(16);
    } finally {
      sim.faults.clear();
    }
  });
});

describe('people’s calls on a platform that hangs', () => {
  it('are refused unsent past the bound, while a halt and a background pass still go out', async () => {
    const [guid] = sim.addAttacks(sim.seed.teams.platform.id, 1, { createUser: sim.seed.users.owner.email });
    sim.faults.inject({ kind: 'hang', method: 'GET', path: '/attacks/active', times: Infinity });
    try {
      const outcome = await runClient<{ oneMore: string; halt: string; waiting: string[]; background: string }>(
        `
        const outcome = (call) => call.then(() => 'answered', (error) => error.name);
        // As many reads as may wait: every connection held by the platform, and four more queued.
        const waiting = Array.from({ length: 20 }, () => outcome(api.attacks.listActive()));
        // Told apart by its page size, to look for it at the platform.
        const oneMore = await outcome(api.attacks.listActive({ pageSize: 7 }));
        const halt = await outcome(api.attacks.halt(${JSON.stringify(guid)}));
        const background = outcome(platform.as({ header: session.header, teamId: team, background: true }).attacks.listActive());
        console.log(JSON.stringify({ oneMore, halt, waiting: await Promise.all(waiting), background: await background }));
        `,
        'maxWaitingCalls: 20, timeoutMs: 3000, retry: { maxAttempts: 1 }',
      );
      expect(outcome.oneMore).toBe('BusyError');
      expect(outcome.halt).toBe('answered');
      expect(new Set(outcome.waiting)).toEqual(new Set(['TimeoutError']));
      // Not refused: it waited its turn behind the others, and ran out of time as they did.
      expect(outcome.background).toBe('TimeoutError');
      // The refused read was never sent.
      expect(sim.requests.filter((r) => r.path === '/attacks/active' && r.query['pageSize'] === '7')).toEqual([]);
    } finally {
      sim.faults.clear();
    }
  });
});
