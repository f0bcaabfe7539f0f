/**
 * The plan's actions alone: the game days and plans on the in-memory store, sessions from the
 * simulator's logins, the start policy against the simulator, and recorders in place of Slack
 * (the game-day board, the approval board, the event recorder). Who may act, and each action's
 * transition of a step, refused from every state it does not leave from.
 */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DemoUser, Simulator } from '@faultline/platform-sim';
import { builtInCatalogue } from '../../src/client/catalogue.ts';
import type { PlatformClient } from '../../src/client/index.ts';
import { parseAttackCommand } from '../../src/commands/attacks/parse.ts';
import type { GameDayParts } from '../../src/gamedays/service.ts';
import type { GuardrailParts } from '../../src/guardrails/service.ts';

/** The parts of game days and of guardrails, as the plan's steps and the start they make use them. */
type Parts = GameDayParts & GuardrailParts;
import { NotLoggedInError } from '../../src/errors.ts';
import type { GameDayRecord } from '../../src/gamedays/gamedayRecord.ts';
import type { PlanStep, Runner, StepRef, StepState } from '../../src/gamedays/plan.ts';
import { addStep, moveStep, removeStep, setAutomatic } from '../../src/gamedays/planChanges.ts';
import { runNext, type StepCheck } from '../../src/gamedays/planNext.ts';
import { StepNotAllowedError } from '../../src/gamedays/planStepState.ts';
import {
  answerStep,
  countDown,
  delayMs,
  delayStep,
  skipStep,
  startStep,
  vetoStep,
} from '../../src/gamedays/planSteps.ts';
import { approvedStepStarts, stepApprovalClosed } from '../../src/gamedays/planStepState.ts';
import { parseApprovalRules } from '../../src/guardrails/approvalRequests.ts';
import { closeStepApproval } from '../../src/guardrails/approvals.ts';
import type { StartAsk } from '../../src/attacks/start.ts';
import { rehearseStart, type StartWay, startPolicy } from '../../src/attacks/startPolicy.ts';
import { Freezes } from '../../src/guardrails/freezes.ts';
import { SessionCipher } from '../../src/store/cipher.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { SessionStore } from '../../src/store/sessions.ts';
import { gameDaysOn } from './setup.ts';
import { platformForFile } from '../support/simulatedPlatform.ts';

const monitoring = { integrationA: 'acme-metrics', domainA: 'app.monitoring-a.example', uriB: undefined };
const channel = 'C0PLAN';
const countdownSeconds = 60;

let sim: Simulator;
let platform: PlatformClient;
let store: KeyValueStore;
let deps: Parts;
let now: number;
/** What reached Slack's side, in order: the board's calls and the recorded events. */
let seen: string[];
let day: GameDayRecord & { id: string };
/** The attacks the start policy created, by guid. */
let startedGuids: string[];

platformForFile((backend) => ({ sim, platform } = backend));

beforeEach(async () => {
  await store?.close();
  store = createKeyValueStore('memory://');
  now = Date.parse('2030-01-01T10:00:00Z');
  seen = [];
  startedGuids = [];
  const rules = parseApprovalRules('type=memory');
  if (!('rules' in rules)) throw new Error(rules.wrong);
  const { logger, cards, guards, gameDays } = gameDaysOn(store, { seen, channel, now: () => now });
  deps = {
    config: { approvalRules: rules.rules, monitoring, countdownSeconds },
    platform,
    store,
    sessions: new SessionStore(store, new SessionCipher(randomBytes(32))),
    logger,
    clock: { now: () => now },
    freezes: new Freezes(store),
    guards,
    cards,
    gameDays,
    approvals: {
      post: async () => {
        seen.push('approval asked');
        return { channel, ts: '9.9' };
      },
      close: () => void seen.push('approval closed'),
    },
    startStep: (ask: StartAsk, way: StartWay) => startPolicy(deps, ask, way),
    rehearseStep: (ask: StartAsk) => rehearseStart(deps, ask),
    guardrails: {
      closeStepApproval: (ref: StepRef, stopped: { how: 'skipped' | 'vetoed'; by: string }) =>
        closeStepApproval(deps, ref, stopped),
    },
    events: {
      record: async (event: { kind: string; card?: { guid: string }; step?: { what: string } }) => {
        if (event.kind === 'started') startedGuids.push(event.card!.guid);
        seen.push(event.kind === 'plan step' ? `step ${event.step!.what}` : event.kind);
        return event.kind === 'started' ? { ...event.card, ts: '2.2', targetWords: '' } : undefined;
      },
    },
  } as unknown as Parts;
  const started = await gameDays.start(channel, 'Failover drill', 'U0FACIL', {
    id: sim.seed.teams.platform.id,
    name: 'Platform',
  });
  day = started.record!;
});

/** A person of the workspace logged in as `user` (or not logged in at all). */
async function person(key: string, user?: DemoUser): Promise<Runner> {
  const who = { workspaceId: 'T0PLAN', userId: `U0${key.toUpperCase()}`, userName: key };
  if (user) await deps.sessions.save(who, await platform.auth.login({ email: user.email, password: user.password }));
  return who;
}

/** Adds a step running `words` in the Platform team to the running game day's plan. */
async function add(words: string, by: Runner): Promise<StepRef> {
  const request = parseAttackCommand(words, builtInCatalogue, { maxAttackSeconds: 3600, monitoring });
  await addStep(
    deps,
    { gameDayId: day.id },
    {
      source: { kind: 'typed' },
      request,
      teamId: sim.seed.teams.platform.id,
      teamName: 'Platform',
      hypothesis: 'the checkout keeps answering',
      addedBy: by.userId,
    },
    by,
  );
  const steps = (await deps.gameDays.plans.get({ gameDayId: day.id })).steps;
  return { channel, gameDayId: day.id, stepId: steps.at(-1)!.id };
}

const stepOf = async (ref: StepRef): Promise<PlanStep> =>
  (await deps.gameDays.plans.get({ gameDayId: ref.gameDayId })).steps.find((s) => s.id === ref.stepId)!;
const stateOf = async (ref: StepRef): Promise<StepState> => (await stepOf(ref)).state;

describe('who may change a plan', () => {
  it('is a person whose own session may run attacks in the step’s team', async () => {
    const owner = await person('owner', sim.seed.users.owner);
    const ref = await add('cpu -l 30', owner);
    expect(await stateOf(ref)).toBe('planned');
    expect(seen).toContain('step added');
  });

  it('is not an observer of the team, another company’s login, or someone not logged in', async () => {
    const owner = await person('owner', sim.seed.users.owner);
    const ref = await add('cpu -l 30', owner);
    const observer = await person('observer', sim.seed.users.observer);
    const globex = await person('globex', sim.seed.users.globex);
    const nobody = await person('nobody');
    await expect(add('cpu -l 30', observer)).rejects.toMatchObject({ name: 'StepNotAllowedError', inTeam: true });
    await expect(add('cpu -l 30', globex)).rejects.toMatchObject({ name: 'StepNotAllowedError', inTeam: false });
    await expect(add('cpu -l 30', nobody)).rejects.toBeInstanceOf(NotLoggedInError);
    const owner_ = { gameDayId: day.id };
    await expect(moveStep(deps, owner_, { id: ref.stepId }, 1, observer)).rejects.toBeInstanceOf(StepNotAllowedError);
    await expect(removeStep(deps, owner_, ref.stepId, observer)).rejects.toBeInstanceOf(StepNotAllowedError);
    await expect(countDown(deps, day, observer, ref.stepId)).rejects.toBeInstanceOf(StepNotAllowedError);
    await expect(setAutomatic(deps, day, observer, true)).rejects.toBeInstanceOf(StepNotAllowedError);
    expect((await deps.gameDays.plans.get(owner_)).steps.map((s) => s.state)).toEqual(['planned']);
    // Turning the automatic mode off only stops it: anyone may.
    expect((await setAutomatic(deps, day, nobody, false)).auto).toBeUndefined();
  });

  it('moves and removes only planned steps', async () => {
    const owner = await person('owner', sim.seed.users.owner);
    const first = await add('cpu -l 30', owner);
    const second = await add('memory -l 30 -p 10', owner);
    await countDown(deps, day, owner, first.stepId);
    const plan = { gameDayId: day.id };
    expect(await moveStep(deps, plan, { id: first.stepId }, 2, owner)).toBe('not planned');
    expect(await removeStep(deps, plan, first.stepId, owner)).toBe('not planned');
    // A planned step does not move before one already under way: it stays, and says so.
    expect(await moveStep(deps, plan, { id: second.stepId }, 1, owner)).toBe('in place');
    expect((await deps.gameDays.plans.get(plan)).steps.map((s) => s.id)).toEqual([first.stepId, second.stepId]);
    expect(await removeStep(deps, plan, second.stepId, owner)).toBe('moved');
    expect(await removeStep(deps, plan, second.stepId, owner)).toBe('no such step');
  });
});

describe("a step's countdown", () => {
  let owner: Runner;
  let ref: StepRef;
  beforeEach(async () => {
    owner = await person('owner', sim.seed.users.owner);
    ref = await add('cpu -l 30', owner);
  });

  it('counts the next planned step down, one step at a time', async () => {
    const second = await add('memory -l 30 -p 10', owner);
    expect(await countDown(deps, day, owner, second.stepId)).toEqual({ kind: 'nothing planned' });
    const counting = await countDown(deps, day, owner, ref.stepId);
    expect(counting).toMatchObject({ kind: 'counting down', position: 1, total: 2 });
    const step = await stepOf(ref);
    expect(step.countdown).toMatchObject({
      startsAt: new Date(now + countdownSeconds * 1000).toISOString(),
      runBy: { userId: owner.userId },
      ts: expect.any(String),
    });
    expect(await countDown(deps, day, owner, second.stepId)).toMatchObject({ kind: 'busy', position: 1 });
    expect(seen.filter((s) => s.startsWith('step ') || s.endsWith('posted'))).toEqual([
      'card posted',
      'step added',
      'step added',
      'countdown posted',
      'step counting down',
    ]);
  });

  it('is put back by Delay, from when it would start or from now, whichever is later', async () => {
    await countDown(deps, day, owner, ref.stepId);
    const startsAt = Date.parse((await stepOf(ref)).countdown!.startsAt);
    expect(await delayStep(deps, ref, 'U0ANYONE')).toMatchObject({ kind: 'done', position: 1 });
    expect(Date.parse((await stepOf(ref)).countdown!.startsAt)).toBe(startsAt + delayMs);
    now = startsAt + 2 * delayMs;
    await delayStep(deps, ref, 'U0ANYONE');
    expect(Date.parse((await stepOf(ref)).countdown!.startsAt)).toBe(now + delayMs);
    expect(await stateOf(ref)).toBe('counting down');
  });

  it('is skipped or vetoed by anyone in the channel, and then nothing more can be done to it', async () => {
    const second = await add('memory -l 30 -p 10', owner);
    await setAutomatic(deps, day, owner, true);
    await countDown(deps, day, owner, ref.stepId);
    expect(await vetoStep(deps, ref, 'U0ANYONE', 'the database is failing over')).toMatchObject({ kind: 'done' });
    const vetoed = await stepOf(ref);
    expect(vetoed).toMatchObject({
      state: 'vetoed',
      vetoed: { by: 'U0ANYONE', reason: 'the database is failing over' },
    });
    expect((await deps.gameDays.plans.get({ gameDayId: day.id })).paused).toMatchObject({ why: 'veto', detail: '1' });
    for (const late of [
      skipStep(deps, ref, 'U0ANYONE'),
      vetoStep(deps, ref, 'U0ANYONE', 'again'),
      delayStep(deps, ref, 'U0ANYONE'),
    ])
      expect(await late).toMatchObject({ kind: 'too late', position: 1 });
    await countDown(deps, day, owner, second.stepId);
    expect(await skipStep(deps, second, 'U0OTHER')).toMatchObject({ kind: 'done', position: 2 });
    expect(await stepOf(second)).toMatchObject({ state: 'skipped', skipped: { by: 'U0OTHER' } });
    expect(await delayStep(deps, { ...ref, stepId: 'gone' }, 'U0ANYONE')).toEqual({ kind: 'gone' });
  });

  it('cannot be skipped, vetoed or delayed before it counts down', async () => {
    for (const click of [skipStep(deps, ref, 'U0X'), vetoStep(deps, ref, 'U0X', 'no'), delayStep(deps, ref, 'U0X')])
      expect(await click).toMatchObject({ kind: 'too late' });
    expect(await stateOf(ref)).toBe('planned');
  });

  it('does not start its step before zero, and is stopped by the end of its game day', async () => {
    await countDown(deps, day, owner, ref.stepId);
    await startStep(deps, ref);
    expect(await stateOf(ref)).toBe('counting down');
    await deps.gameDays.end(channel);
    const stopped = await stepOf(ref);
    expect(stopped.state).toBe('skipped');
    expect(stopped.skipped).toEqual({ at: new Date(now).toISOString() });
  });
});

describe('Run next step', () => {
  let owner: Runner;
  let ref: StepRef;
  /** The steps whose attack was checked again, by position: only a step that may run is. */
  let checked: number[];
  const inChannel = (who: Runner) => ({ ...who, channelId: channel });
  const check: StepCheck = async (_login, _team, step, position) => {
    checked.push(position);
    return { ...step.request, lengthSeconds: 45 };
  };
  beforeEach(async () => {
    owner = await person('owner', sim.seed.users.owner);
    ref = await add('cpu -l 30', owner);
    checked = [];
  });

  it('counts the next step down with its attack checked again, by someone who may run it', async () => {
    expect(await runNext(deps, inChannel(owner), channel, check)).toMatchObject({
      kind: 'counting down',
      position: 1,
      total: 1,
    });
    expect(checked).toEqual([1]);
    expect(await stepOf(ref)).toMatchObject({ state: 'counting down', request: { lengthSeconds: 45 } });
  });

  it('refuses, before the attack is read again, anyone who may not run the step', async () => {
    const observer = await person('observer', sim.seed.users.observer);
    const globex = await person('globex', sim.seed.users.globex);
    await expect(runNext(deps, inChannel(observer), channel, check)).rejects.toBeInstanceOf(StepNotAllowedError);
    expect(await runNext(deps, inChannel(globex), channel, check)).toEqual({
      kind: 'not your team',
      position: 1,
      teamName: 'Platform',
    });
    await expect(runNext(deps, inChannel(await person('nobody')), channel, check)).rejects.toBeInstanceOf(
      NotLoggedInError,
    );
    expect(checked).toEqual([]);
    expect(await stateOf(ref)).toBe('planned');
  });

  it('says why nothing runs: no game day, a step under way, or nothing left to run', async () => {
    expect(await runNext(deps, inChannel(owner), 'C0ELSEWHERE', check)).toEqual({ kind: 'no game day' });
    await runNext(deps, inChannel(owner), channel, check);
    expect(await runNext(deps, inChannel(owner), channel, check)).toMatchObject({ kind: 'busy', position: 1 });
    await skipStep(deps, ref, 'U0ANYONE');
    expect(await runNext(deps, inChannel(owner), channel, check)).toEqual({ kind: 'nothing planned' });
    expect(checked).toEqual([1]);
  });
});

describe('a step at zero', () => {
  let owner: Runner;
  beforeEach(async () => {
    owner = await person('owner', sim.seed.users.owner);
  });

  /** A step of `words` counted down by the owner and at zero now. */
  async function atZero(words: string): Promise<StepRef> {
    const ref = await add(words, owner);
    await countDown(deps, day, owner, ref.stepId);
    now += countdownSeconds * 1000;
    return ref;
  }

  it('starts with the session of who pressed Run, runs its attack until it ends, then asks its question', async () => {
    const ref = await atZero('cpu -l 30');
    await startStep(deps, ref);
    expect(await stateOf(ref)).toBe('running');
    expect(seen).toContain('started');
    expect(startedGuids).toHaveLength(1);
    const guid = startedGuids[0]!;
    // What the Slack recorder does with the attack a step started.
    await deps.gameDays.stepStarted(ref, guid);
    expect(await stepOf(ref)).toMatchObject({ state: 'running', guid });
    // A second start (another replica, a late click) finds it running already.
    await startStep(deps, ref);
    expect(sim.requests.filter((r) => r.path === '/attacks/new')).toHaveLength(1);
    const card = { guid, stage: 'Successful', lifecycle: 'Complete', haltedBy: [], channel, createdAt: '' };
    await deps.gameDays.attackFinished(card as never);
    expect(await stepOf(ref)).toMatchObject({ state: 'ended', ended: { stage: 'Successful' } });
    expect(seen).toContain('question asked');
    expect(await answerStep(deps, ref, 'U0ANYONE', 'held', undefined)).toMatchObject({ kind: 'done' });
    expect(await answerStep(deps, ref, 'U0OTHER', 'not held', undefined)).toMatchObject({ kind: 'too late' });
    expect((await stepOf(ref)).answer).toMatchObject({ answer: 'held', by: 'U0ANYONE' });
  });

  it('is not started when its runner has since logged out, and the automatic mode pauses', async () => {
    const ref = await atZero('cpu -l 30');
    await deps.gameDays.plans.change({ gameDayId: day.id }, (plan) => {
      plan.auto = { by: owner, since: new Date(now).toISOString() };
    });
    await deps.sessions.drop(owner);
    await startStep(deps, ref);
    expect(await stepOf(ref)).toMatchObject({ state: 'not started', notStarted: { reason: 'StepNotStartedError' } });
    expect((await deps.gameDays.plans.get({ gameDayId: day.id })).paused).toMatchObject({ why: 'not started' });
    expect(sim.requests.filter((r) => r.path === '/attacks/new')).toHaveLength(0);
    expect(await skipStep(deps, ref, 'U0X')).toMatchObject({ kind: 'too late' });
  });

  it('waits for a second person when a rule says so, and runs once approved', async () => {
    const ref = await atZero('memory -l 30 -p 10');
    await startStep(deps, ref);
    expect(await stateOf(ref)).toBe('awaiting approval');
    expect(seen).toContain('step awaiting approval');
    expect(await approvedStepStarts(deps, ref)).toBe(true);
    expect(await stateOf(ref)).toBe('running');
    // Approved once: a second Approve finds it no longer waiting.
    expect(await approvedStepStarts(deps, ref)).toBe(false);
  });

  it('waiting for approval, is skipped or vetoed with its request closed, or not started when it is rejected', async () => {
    const skipped = await atZero('memory -l 30 -p 10');
    await startStep(deps, skipped);
    expect(await skipStep(deps, skipped, 'U0X')).toMatchObject({ kind: 'done' });
    expect(await approvedStepStarts(deps, skipped)).toBe(false);
    expect(await stateOf(skipped)).toBe('skipped');

    const rejected = await atZero('memory -l 30 -p 10');
    await startStep(deps, rejected);
    await stepApprovalClosed(deps, rejected, { kind: 'rejected', by: 'U0APPROVER' });
    expect(await stepOf(rejected)).toMatchObject({ state: 'not started' });
    expect(await approvedStepStarts(deps, rejected)).toBe(false);
    expect(sim.requests.filter((r) => r.path === '/attacks/new')).toHaveLength(0);
  });
});
