import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics.ts';
import { Probes } from '../../src/probes.ts';
import { httpServerOptions } from '../../src/slack/receiver.ts';
import { statusLine } from '../support/ports.ts';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

describe('the operations port', () => {
  it('answers GET of its three paths on the given host, and not found to anything else', async () => {
    let reachable = true;
    const probes = new Probes({ ping: async () => reachable, metrics: createMetrics() });
    server = await probes.serve(0, '127.0.0.1');
    const { address, port } = server.address() as AddressInfo;
    expect(address).toBe('127.0.0.1');
    expect(server.headersTimeout).toBe(httpServerOptions.headersTimeout);
    expect(server.requestTimeout).toBe(httpServerOptions.requestTimeout);
    const ops = `http://127.0.0.1:${port}`;

    expect(await (await fetch(`${ops}/healthz`)).text()).toBe('ok\n');
    expect(await (await fetch(`${ops}/readyz`)).text()).toBe('ready\n');
    const metrics = await fetch(`${ops}/metrics`);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(await metrics.text()).toContain('faultline_');

    for (const path of ['/nowhere', '/healthz/', '/login/abcdefgh', '/constructor', '/__proto__']) {
      expect((await fetch(`${ops}${path}`)).status, path).toBe(404);
    }
    expect((await fetch(`${ops}/healthz`, { method: 'POST' })).status).toBe(404);
    expect(await statusLine(port, 'GET //[ HTTP/1.1')).toMatch(/^HTTP\/1\.1 400 /);

    reachable = false;
    const unreachable = await fetch(`${ops}/readyz`);
    expect([unreachable.status, await unreachable.text()]).toEqual([503, 'store unreachable\n']);
    reachable = true;
    probes.stopping = true;
    const stopping = await fetch(`${ops}/readyz`);
    expect([stopping.status, await stopping.text()]).toEqual([503, 'stopping\n']);
  });

  it('gives Bolt /metrics only when asked, since it has no authentication', () => {
    const probes = new Probes({ ping: async () => true, metrics: createMetrics() });
    expect(probes.routes({ metrics: false }).map((r) => r.path)).toEqual(['/healthz', '/readyz']);
    expect(probes.routes({ metrics: true }).map((r) => r.path)).toEqual(['/healthz', '/readyz', '/metrics']);
  });
});
