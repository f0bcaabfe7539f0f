import { startFakeSlack, type FakeSlack } from '@faultline/fake-slack';
import { startSimulator, type Simulator } from '@faultline/platform-sim';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPlayground, type Playground } from '../src/server.ts';

/**
 * The page's Simulator panel, through the playground server to the simulator's control surface
 * over HTTPS: what it lists, what it changes, and what it refuses.
 */

let sim: Simulator;
let fake: FakeSlack;
let agent: Agent;
let playground: Playground;
let bare: Playground;

beforeAll(async () => {
  sim = await startSimulator();
  fake = await startFakeSlack({ signingSecret: 'panel-test-secret', botToken: 'xoxb-panel-test' });
  agent = new Agent({ connect: { ca: sim.ca } });
  playground = await startPlayground({ fake, simulator: { controlUrl: sim.controlUrl, dispatcher: agent } });
  bare = await startPlayground({ fake });
});

afterAll(async () => {
  await playground?.stop();
  await bare?.stop();
  await agent?.close();
  await fake?.stop();
  await sim?.stop();
});

afterEach(() => sim.reset());

async function post(path: string, body: unknown, on = playground) {
  const response = await fetch(new URL(path, on.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const monitor = (id: number) =>
  sim.state.companies.get(sim.seed.company.id)!.monitoringA!.monitors.find((candidate) => candidate.id === id)!;

describe('the Simulator panel', () => {
  it('is announced in the directory, and lists the monitors and alerts with the states it offers', async () => {
    expect(
      ((await (await fetch(new URL('/api/directory', playground.url))).json()) as { simulator: boolean }).simulator,
    ).toBe(true);
    const view = (await (await fetch(new URL('/api/simulator', playground.url))).json()) as any;
    expect(view.monitors).toContainEqual(
      expect.objectContaining({ id: 1234567, name: 'checkout p99 latency', state: 'OK' }),
    );
    expect(view.alerts).toContainEqual(expect.objectContaining({ name: 'CheckoutErrorRate', state: 'inactive' }));
    expect(view.monitorChoices).toContain('Alert');
    expect(view.alertChoices).toContain('firing');
  });

  it('turns a monitor to Alert and an alert to firing, as the page asks, and answers with the new view', async () => {
    const changed = await post('/api/simulator/monitor', { person: 'U0ALICE', id: 1234567, state: 'Alert' });
    expect(changed.status).toBe(200);
    expect(changed.body.monitors).toContainEqual(expect.objectContaining({ id: 1234567, state: 'Alert' }));
    expect(monitor(1234567).state).toBe('Alert');

    expect(
      (await post('/api/simulator/alert', { person: 'U0ALICE', name: 'CheckoutErrorRate', state: 'firing' })).status,
    ).toBe(200);
    expect(
      sim.state.companies
        .get(sim.seed.company.id)!
        .monitoringB!.alerts.find((alert) => alert.name === 'CheckoutErrorRate')!.state,
    ).toBe('firing');
    // The panel's changes go through the control surface, never the platform API.
    expect(sim.requests).toEqual([]);
  });

  it('makes a target ignore halts and take them again, listing which do', async () => {
    const listed = (await (await fetch(new URL('/api/simulator', playground.url))).json()) as any;
    expect(listed.targets).toContainEqual({
      id: 'platform-web-2',
      kind: 'host',
      team: 'Platform',
      ignoresHalts: false,
    });

    const ignoring = await post('/api/simulator/target', {
      person: 'U0ALICE',
      id: 'platform-web-2',
      ignoresHalts: true,
    });
    expect(ignoring.status).toBe(200);
    expect(ignoring.body.targets).toContainEqual(expect.objectContaining({ id: 'platform-web-2', ignoresHalts: true }));
    expect(sim.state.deafTargets.has('platform-web-2')).toBe(true);

    const back = await post('/api/simulator/target', { person: 'U0ALICE', id: 'platform-web-2', ignoresHalts: false });
    expect(back.body.targets).toContainEqual(expect.objectContaining({ id: 'platform-web-2', ignoresHalts: false }));
    expect(sim.state.deafTargets.has('platform-web-2')).toBe(false);

    expect(await post('/api/simulator/target', { id: 'nowhere-1', ignoresHalts: true })).toEqual({
      status: 404,
      body: { error: 'The simulator has no target nowhere-1.' },
    });
    expect(sim.requests).toEqual([]);
  });

  it('refuses a state it does not offer, and says when the simulator has no such monitor', async () => {
    expect(await post('/api/simulator/monitor', { id: 1234567, state: 'Broken' })).toEqual({
      status: 400,
      body: { error: 'The request is not one the page sends.' },
    });
    expect(monitor(1234567).state).toBe('OK');
    expect(await post('/api/simulator/monitor', { id: 999, state: 'Alert' })).toEqual({
      status: 404,
      body: { error: 'The simulator has no monitor 999.' },
    });
  });

  it('says so when the simulator does not answer', async () => {
    const gone = await startPlayground({
      fake,
      simulator: { controlUrl: 'https://127.0.0.1:1/_control', dispatcher: agent },
    });
    try {
      expect(await post('/api/simulator/monitor', { id: 1234567, state: 'Alert' }, gone)).toEqual({
        status: 502,
        body: { error: 'The simulator is not answering. Is the demo still running?' },
      });
    } finally {
      await gone.stop();
    }
  });

  it('is absent from a playground without a simulator', async () => {
    expect(
      ((await (await fetch(new URL('/api/directory', bare.url))).json()) as { simulator: boolean }).simulator,
    ).toBe(false);
    expect(await post('/api/simulator/monitor', { id: 1234567, state: 'Alert' }, bare)).toEqual({
      status: 404,
      body: { error: 'This playground has no simulator to control.' },
    });
  });
});
