import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';

const entry = new URL('../src/main.ts', import.meta.url).pathname;
let directory: string | undefined;

afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

describe('npm run sim', () => {
  it('prints the URLs, the CA file to trust and the logins, serves HTTPS with that CA, and stops on SIGTERM', async () => {
    directory = await mkdtemp(join(tmpdir(), 'faultline-sim-'));
    const caFile = join(directory, 'nested', 'sim-ca.pem');
    const child = spawn(process.execPath, [entry], {
      env: { ...process.env, SIM_PORT: '0', SIM_HTTP_PORT: '0', SIM_CA_FILE: caFile },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(child, 'exit');
    try {
      let output = '';
      for await (const chunk of child.stdout) {
        output += String(chunk);
        if (output.includes('Ctrl-C')) break;
      }
      expect(output).toContain(`NODE_EXTRA_CA_CERTS=${caFile}`);
      expect(output).toContain('owner@acme.test');
      expect(output).toContain('MFA code 246810');
      const url = /HTTPS:\s+(https:\/\/\S+)/.exec(output)?.[1] ?? '';
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1$/);

      const agent = new Agent({ connect: { ca: await readFile(caFile, 'utf8') } });
      try {
        const answer = await request(`${url}/roles`, { dispatcher: agent });
        await answer.body.text();
        expect(answer.statusCode).toBe(401);
        // The control surface it prints, outside /v1, turns a monitor to Alert.
        const controlUrl = /Control .*GET (https:\/\/\S+) lists/.exec(output)?.[1] ?? '';
        expect(controlUrl).toBe(url.replace(/\/v1$/, '/_control'));
        const curl = /curl .* -d '(\{"state":"Alert"\})' (\S+)/.exec(output);
        expect(curl?.[2]).toBe(`${controlUrl}/monitors/1234567/state`);
        const changed = await request(curl![2]!, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: curl![1]!,
          dispatcher: agent,
        });
        expect(await changed.body.json()).toEqual({ id: 1234567, name: 'checkout p99 latency', state: 'Alert' });
      } finally {
        await agent.close();
      }
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await exited;
    expect(code).toBe(0);
  });
});
