/**
 * The start policy alone: the in-memory store, the freezes, guards, cards and sessions on it, the
 * platform client against the simulator, and recorders in place of Slack (the approval board and
 * the event recorder). Each refusal, and the order: freeze, guards, approval, start.
 */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DemoUser, Simulator } from '@faultline/platform-sim';
import { CardStore } from '../../src/attacks/cards.ts';
import type { StartAsk, StartParts } from '../../src/attacks/start.ts';
import { NoTargetsError } from '../../src/attacks/blastRadius.ts';
import { rehearseStart, startChecks, startPolicy, type StartWay } from '../../src/attacks/startPolicy.ts';
import { builtInCatalogue } from '../../src/client/catalogue.ts';
import type { PlatformClient } from '../../src/client/index.ts';
import { parseAttackCommand } from '../../src/commands/attacks/parse.ts';
import { parseApprovalRules } from '../../src/guardrails/approvalRequests.ts';
import { Freezes, FrozenError } from '../../src/guardrails/freezes.ts';
import { guardKey, GuardStore, GuardsUnknownError, UnhealthyGuardsError } from '../../src/guardrails/guards.ts';
import { createLogger } from '../../src/logger.ts';
import { SessionCipher } from '../../src/store/cipher.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { keys } from '../../src/store/keys.ts';
import { SessionStore } from '../../src/store/sessions.ts';
import { platformForFile } from '../support/simulatedPlatform.ts';

const monitoring = { integrationA: 'acme-metrics', domainA: 'app.monitoring-a.example', uriB: undefined };
const channel = 'C0POLICY';

let sim: Simulator;
let platform: PlatformClient;
let store: KeyValueStore;
let deps: StartParts;
/** What the policy did that others see, in order: guard reads, requests posted, creates, cards. */
let seen: string[];

platformForFile((backend) => ({ sim, platform } = backend));

beforeEach(async () => {
  await store?.close();
  store = createKeyValueStore('memory://');
  seen = [];
  const rules = parseApprovalRules('type=memory');
  if (!('rules' in rules)) throw new Error(rules.wrong);
  deps = {
    config: { approvalRules: rules.rules, monitoring },
    platform,
    store,
    sessions: new SessionStore(store, new SessionCipher(randomBytes(32))),
    logger: createLogger('silent'),
    clock: { now: Date.now },
    freezes: new Freezes(store),
    guards: new GuardStore(store),
    cards: new CardStore(store),
    gameDays: { runningBase: async () => undefined },
    approvals: {
      post: async () => {
        seen.push('request posted');
        return { channel, ts: '1.1' };
      },
      close: () => undefined,
    },
    events: {
      record: async (event: { kind: string; card?: object }) => {
        seen.push(event.kind);
        return event.kind === 'started' ? { ...event.card, ts: '2.2', targetWords: '' } : undefined;
      },
    },
  } as unknown as StartParts;
});

const monitorReads = () => sim.requests.filter((r) => r.path.startsWith('/monitoringA/monitors/')).length;
const creates = () => sim.requests.filter((r) => r.method === 'POST' && r.path === '/attacks/new').length;
const intentsLeft = async () => {
  let n = 0;
  for await (const _ of store.entries(keys.startIntent.prefix)) n++;
  return n;
};

/** A demo user logged in as the bot keeps them, asking to start `words` in the Platform team. */
async function ask(words: string, user: DemoUser = sim.seed.users.owner): Promise<StartAsk> {
  const actor = { workspaceId: 'T0POLICY', userId: 'U0POLICY', userName: 'policy', channelId: channel };
  await deps.sessions.save(actor, await platform.auth.login({ email: user.email, password: user.password }));
  const login = (await deps.sessions.get(actor))!;
  const team = login.session.teams.find((t) => t.identifier === sim.seed.teams.platform.id)!;
  const request = parseAttackCommand(words, builtInCatalogue, { maxAttackSeconds: 3600, monitoring });
  return { actor, login, team, request, channel };
}

async function freeze(start: StartAsk) {
  await deps.freezes.declare({
    scope: 'team',
    teamId: start.team.identifier,
    by: { ...start.actor },
    reason: 'incident',
    since: new Date().toISOString(),
    channel,
  });
}

const approved: StartWay = { kind: 'approval', id: 'req-1', approver: { userId: 'U0OTHER', userName: 'other' } };

describe('the start policy', () => {
  it('starts an attack no rule holds back, with its intent written and ended', async () => {
    const outcome = await startPolicy(deps, await ask('cpu -l 30 --guard a:1234567'), { kind: 'command' });
    expect(outcome).toEqual({ kind: 'started', started: expect.objectContaining({ guid: expect.any(String) }) });
    expect(creates()).toBe(1);
    expect(monitorReads()).toBe(1);
    expect(seen).toEqual(['started']);
    expect(await intentsLeft()).toBe(0);
  });

  it('refuses a frozen team before any guard is read, for every way in, an approved request too', async () => {
    const start = await ask('memory -l 30 -p 10 --guard a:1234567');
    await freeze(start);
    for (const way of [{ kind: 'command' }, { kind: 'preview', id: 'p' }, approved] as StartWay[])
      await expect(startPolicy(deps, start, way)).rejects.toBeInstanceOf(FrozenError);
    await expect(startChecks(deps, start)).rejects.toBeInstanceOf(FrozenError);
    expect(monitorReads()).toBe(0);
    expect(seen).toEqual([]);
    expect(creates()).toBe(0);
    expect(await intentsLeft()).toBe(0);
  });

  it('refuses an unhealthy guard before a second person is asked, and an approved request too', async () => {
    sim.setMonitorState(1234567, 'Alert');
    const start = await ask('memory -l 30 -p 10 --guard a:1234567');
    for (const way of [{ kind: 'command' }, approved] as StartWay[])
      await expect(startPolicy(deps, start, way)).rejects.toBeInstanceOf(UnhealthyGuardsError);
    await expect(startChecks(deps, start)).rejects.toBeInstanceOf(UnhealthyGuardsError);
    expect(seen).toEqual([]);
    expect(creates()).toBe(0);
  });

  it('needs Start anyway for a guard that cannot be read, then carries it to the request', async () => {
    const start = await ask('memory -l 30 -p 10 --guard a:1234569');
    await expect(startPolicy(deps, start, { kind: 'command' })).rejects.toBeInstanceOf(GuardsUnknownError);
    expect(seen).toEqual([]);
    const { unknown, rule } = await startChecks(deps, start);
    expect(unknown.map((c) => c.guard.spec)).toEqual([expect.objectContaining({ monitorId: '1234569' })]);
    expect(rule).toEqual({ kind: 'type', type: 'memory' });
    const acknowledged = unknown.map((c) => guardKey(c.guard.spec));
    const outcome = await startPolicy(deps, start, { kind: 'preview', id: 'p', acknowledgedGuards: acknowledged });
    expect(outcome).toEqual({ kind: 'approval requested', rule, channel });
    const pending: { unknownGuards?: string[] }[] = [];
    for await (const [, record] of store.entries<{ pending: { unknownGuards?: string[] } }>(keys.approval.prefix))
      pending.push(record.pending);
    expect(pending.map((p) => p.unknownGuards)).toEqual([acknowledged]);
  });

  it('asks a second person only once the guards were read, and starts nothing then', async () => {
    const start = await ask('memory -l 30 -p 10 --guard a:1234567');
    const order: string[] = [];
    const reads = monitorReads;
    const outcome = await startPolicy(deps, start, {
      kind: 'plan step',
      step: { gameDayId: 'g', stepId: 's', channel },
      awaitApproval: async () => {
        order.push(`step waits after ${reads()} guard read`);
      },
    });
    expect(outcome.kind).toBe('approval requested');
    expect(order).toEqual(['step waits after 1 guard read']);
    expect(seen).toEqual(['request posted', 'approval']);
    expect(creates()).toBe(0);
    expect(await intentsLeft()).toBe(0);
  });

  it('starts an approved request without asking again, in the requester’s name with the approver on record', async () => {
    const started = await startPolicy(deps, await ask('memory -l 30 -p 10'), approved);
    expect(seen).toEqual(['started']);
    expect(creates()).toBe(1);
    expect(started.card).toEqual(
      expect.objectContaining({ approvedBy: { userId: 'U0OTHER', userName: 'other' }, guid: started.guid }),
    );
  });

  it('rehearses a start through the same checks, and then asks nobody and creates nothing', async () => {
    const memory = await ask('memory -l 30 -p 10 --target-tags role=web --guard a:1234567');
    expect(await rehearseStart(deps, memory)).toEqual({
      targets: expect.objectContaining({ kind: 'Host', matches: ['platform-web-1', 'platform-web-2'], outOf: 4 }),
      rule: { kind: 'type', type: 'memory' },
    });
    expect(monitorReads()).toBe(1);
    await expect(rehearseStart(deps, await ask('cpu -l 30 --target-tags role=webb'))).rejects.toBeInstanceOf(
      NoTargetsError,
    );
    sim.setMonitorState(1234567, 'Alert');
    await expect(rehearseStart(deps, memory)).rejects.toBeInstanceOf(UnhealthyGuardsError);
    await expect(rehearseStart(deps, await ask('cpu -l 30 --guard a:1234569'))).rejects.toBeInstanceOf(
      GuardsUnknownError,
    );
    await freeze(memory);
    await expect(rehearseStart(deps, memory)).rejects.toBeInstanceOf(FrozenError);
    expect(seen).toEqual([]);
    expect(creates()).toBe(0);
    expect(await intentsLeft()).toBe(0);
  });
});
