import { beforeEach, describe, expect, it } from 'vitest';
import { simulatorForFile } from './support.ts';

// Ten-second stages, so that each check lands well inside a stage whatever the real time spent.
const stageMs = 10_000;

const { sim, api } = await simulatorForFile({ stageSeconds: stageMs / 1000 });
const platform = sim.seed.teams.platform.id;
let owner: string;
beforeEach(async () => {
  owner = await api.companyAuth(sim.seed.users.owner);
});

const attack = (guid: string) => api.getAttack(owner, platform, guid);

async function activeGuids(): Promise<string[]> {
  return (await api.call('GET', '/attacks/active', { auth: owner, teamId: platform }))
    .json()
    .map((each: { guid: string }) => each.guid);
}

describe('stages', () => {
  it('run Pending, Distributed, Initializing, Running for the length, TearingDown, Successful', async () => {
    const guid = await api.createAttack(owner, platform, { args: ['-l', '60'] });
    const created = await attack(guid);
    expect(created).toMatchObject({
      stage: 'Pending',
      stage_lifecycle: 'Active',
      end_time: null,
      updated_at: created.created_at,
    });

    const seen: Array<[string, string]> = [];
    for (const step of [15_000, 10_000, 10_000, 50_000, 10_000, 10_000]) {
      sim.clock.advance(step);
      const current = await attack(guid);
      seen.push([current.stage, current.stage_lifecycle]);
    }
    expect(seen).toEqual([
      ['Distributed', 'Active'],
      ['Initializing', 'Active'],
      ['Running', 'Active'],
      ['Running', 'Active'],
      ['TearingDown', 'Active'],
      ['Successful', 'Complete'],
    ]);
    const finished = await attack(guid);
    const expectedEnd = Date.parse(created.created_at) + 4 * stageMs + 60_000;
    expect(Date.parse(finished.end_time)).toBe(expectedEnd);
    expect(finished.updated_at).toBe(finished.end_time);
    expect(await activeGuids()).toEqual([]);
  });

  it('go Halt, HaltDistributed, UserHalted after a halt, and the attack stays listed as active until then', async () => {
    const guid = await api.createAttack(owner, platform, { args: ['-l', '600'] });
    sim.clock.advance(35_000);
    expect((await attack(guid)).stage).toBe('Running');

    const halt = await api.call('POST', `/attacks/${guid}/halt`, {
      auth: owner,
      teamId: platform,
      json: { reason: 'error budget burnt' },
    });
    expect(halt.status).toBe(202);
    const halting = await attack(guid);
    expect(halting).toMatchObject({
      stage: 'Halt',
      stage_lifecycle: 'Halting',
      end_time: null,
      halt_reason: 'error budget burnt',
    });
    expect(await activeGuids()).toEqual([guid]);

    sim.clock.advance(15_000);
    expect(await attack(guid)).toMatchObject({ stage: 'HaltDistributed', stage_lifecycle: 'Halting', end_time: null });

    sim.clock.advance(10_000);
    const halted = await attack(guid);
    expect(halted).toMatchObject({ stage: 'UserHalted', stage_lifecycle: 'Complete' });
    expect(Date.parse(halted.end_time)).toBe(Date.parse(halting.updated_at) + 2 * stageMs);
    expect(await activeGuids()).toEqual([]);
    const completed = (await api.call('GET', '/attacks/completed', { auth: owner, teamId: platform })).json();
    expect(completed.map((each: { guid: string }) => each.guid)).toEqual([guid]);
  });

  it('can halt an attack that is still Pending', async () => {
    const guid = await api.createAttack(owner, platform);
    await api.call('DELETE', `/attacks/${guid}`, { auth: owner, teamId: platform });
    sim.clock.advance(2 * stageMs);
    expect(await attack(guid)).toMatchObject({ stage: 'UserHalted', stage_lifecycle: 'Complete' });
  });
});
