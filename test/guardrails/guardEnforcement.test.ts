/**
 * The guard enforcement pass on its own: a guard that fires halts every attack it covers, with the
 * session of someone who set it, and says which it could not halt.
 */
import { describe, expect, it } from 'vitest';
import { enforceGuards } from '../../src/guardrails/guardEnforcement.ts';
import type { Guard, GuardedAttack, GuardSpec } from '../../src/guardrails/guards.ts';
import type { Actor } from '../../src/store/sessions.ts';
import { channel, type Seen, useGuardrails } from './parts.ts';

const t = useGuardrails();

const latency: GuardSpec = {
  kind: 'a',
  monitorId: '1234567',
  integration: 'acme-metrics',
  domain: 'app.monitoring-a.example',
};

const person = (userId: string) => ({ workspaceId: 'T0GUARDS', userId, userName: userId.toLowerCase() });
const guard = (owner: Actor | ReturnType<typeof person>): Guard => ({
  spec: latency,
  owner: { workspaceId: owner.workspaceId, userId: owner.userId, userName: owner.userName },
});

/** An attack running on the platform in the Platform team, started by `startedBy`, guarded by `guards`. */
async function guarded(guards: Guard[], startedBy = person('U0STARTER')): Promise<GuardedAttack> {
  const teamId = t.sim.seed.teams.platform.id;
  const attack: GuardedAttack = {
    guid: t.sim.createAttackDirectly(teamId, { type: 'cpu', args: ['-l', '600'] }),
    kind: 'attack',
    teamId,
    teamName: 'Platform',
    channel,
    type: 'cpu',
    createdAt: new Date().toISOString(),
    startedBy,
    lengthSeconds: 600,
  };
  await t.deps.guards.setForAttack(attack, guards);
  return attack;
}

const fired = () => t.events.filter((e) => e.kind === 'guard fired');
const halts = () =>
  t.events
    .filter((e) => e.kind === 'halted')
    .map((e) => ({ guid: e.guid, by: (e.by as Actor).userId, reason: (e as Seen & { reason?: string }).reason }));
const guids = (attacks: unknown) => (attacks as GuardedAttack[]).map((a) => a.guid);

describe('guard enforcement', () => {
  it('reads a healthy guard, keeps its reading and halts nothing', async () => {
    const owner = await t.login('U0OWNER');
    await guarded([guard(owner)]);
    await enforceGuards(t.deps);
    expect(await t.deps.guards.reading(latency)).toEqual(expect.objectContaining({ health: 'healthy', state: 'OK' }));
    expect(fired()).toEqual([]);
    expect(halts()).toEqual([]);
  });

  it('halts every attack a fired guard covers, with its owner’s session, once', async () => {
    const owner = await t.login('U0OWNER');
    const first = await guarded([guard(owner)]);
    const second = await guarded([guard(owner)]);
    t.sim.setMonitorState(1234567, 'Alert');
    await enforceGuards(t.deps);
    expect(halts().map((h) => [h.guid, h.by, h.reason])).toEqual(
      expect.arrayContaining([
        [first.guid, 'U0OWNER', expect.stringMatching(/^guard checkout p99 latency \(1234567\) fired$/)],
        [second.guid, 'U0OWNER', expect.any(String)],
      ]),
    );
    expect(halts()).toHaveLength(2);
    expect(fired()).toHaveLength(1);
    expect(guids(fired()[0]!.halted).sort()).toEqual([first.guid, second.guid].sort());
    expect(fired()[0]!.notHalted).toEqual([]);
    await enforceGuards(t.deps);
    expect(halts()).toHaveLength(2);
  });

  it('halts with the next owner’s session when the first may not, as when two people set one guard', async () => {
    const observer = await t.login('U0OBSERVER', t.sim.seed.users.observer);
    const owner = await t.login('U0OWNER');
    const first = await guarded([guard(observer)]);
    const second = await guarded([guard(owner)]);
    t.sim.setMonitorState(1234567, 'Alert');
    await enforceGuards(t.deps);
    expect(halts().map((h) => [h.guid, h.by, h.reason])).toEqual(
      expect.arrayContaining([
        [first.guid, 'U0OWNER', expect.stringMatching(/^guard checkout p99 latency \(1234567\) fired$/)],
        [second.guid, 'U0OWNER', expect.any(String)],
      ]),
    );
    expect(halts()).toHaveLength(2);
  });

  it('says which attacks it could not halt: no owner logged in, or none allowed to', async () => {
    // Read with the starter's session, but only a guard's owners halt what it covers.
    const starter = await t.login('U0STARTER');
    const gone = await guarded([guard(person('U0GONE'))], starter);
    t.sim.setMonitorState(1234567, 'Alert');
    await enforceGuards(t.deps);
    expect(halts()).toEqual([]);
    expect(guids(fired()[0]!.notHalted)).toEqual([gone.guid]);

    const observer = await t.login('U0OBSERVER', t.sim.seed.users.observer);
    const refused = await guarded([guard(observer)], starter);
    await enforceGuards(t.deps);
    expect(halts()).toEqual([]);
    expect(guids(fired().at(-1)!.notHalted)).toEqual([refused.guid]);
  });

  it('reads a guard nobody logged in can read as unknown, and halts nothing', async () => {
    await guarded([guard(person('U0GONE'))]);
    t.sim.setMonitorState(1234567, 'Alert');
    await enforceGuards(t.deps);
    expect(await t.deps.guards.reading(latency)).toEqual(
      expect.objectContaining({ health: 'unknown', state: 'nobody logged in can read it' }),
    );
    expect(fired()).toEqual([]);
  });
});
