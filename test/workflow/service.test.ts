/**
 * The Workflow Builder steps' service alone, on the in-memory store, with a recorder in place of
 * Slack's `functions.complete…` calls: whom a step acts for, that a run is taken once, how a step
 * waiting on an approval or on its attack ends, and what becomes of runs a stopped bot left.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { CardStore } from '../../src/attacks/cards.ts';
import { builtInCatalogue } from '../../src/client/catalogue.ts';
import { parseAttackCommand } from '../../src/commands/attacks/parse.ts';
import type { ApprovalClosing } from '../../src/guardrails/approvals.ts';
import { createLogger } from '../../src/logger.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { keys } from '../../src/store/keys.ts';
import {
  FREEZE_STEP,
  HALT_ALL_STEP,
  RUN_SAVED_ATTACK_STEP,
  START_GAME_DAY_STEP,
  type StepFailure,
  type StepResult,
  vouchedPerson,
  WorkflowService,
  type WorkflowStepRun,
} from '../../src/workflow/service.ts';
import { startedCard } from '../support/cards.ts';

const actor = { workspaceId: 'T0FLOW', userId: 'U0RUNNER', userName: 'runner', channelId: 'C0FLOW' };

/** How each step ended, as Slack would have been told, in order. */
type Ended = { executionId: string; outputs: Record<string, unknown> } | { executionId: string; failed: StepFailure };

let store: KeyValueStore;
let ended: Ended[];
/** The runs done again, and what the next one answers. */
let ranAgain: WorkflowStepRun[];
let answer: () => Promise<StepResult>;
let workflow: WorkflowService;

beforeEach(async () => {
  await store?.close();
  store = createKeyValueStore('memory://');
  ended = [];
  ranAgain = [];
  answer = async () => ({ outputs: { halted: 0 } });
  workflow = new WorkflowService({
    store,
    logger: createLogger('silent'),
    ends: {
      complete: async (executionId, outputs) => void ended.push({ executionId, outputs }),
      fail: async (executionId, failed) => void ended.push({ executionId, failed }),
    },
    runAgain: async (run) => {
      ranAgain.push(run);
      return answer();
    },
  });
});

const run = (executionId: string, callbackId: string, inputs: Record<string, unknown> = {}): WorkflowStepRun => ({
  executionId,
  callbackId,
  title: `step ${callbackId}`,
  actor,
  inputs,
});

const request = parseAttackCommand('memory -l 30 -p 10', builtInCatalogue, {
  maxAttackSeconds: 3600,
  monitoring: { integrationA: undefined, domainA: undefined, uriB: undefined },
});
const closing = (kind: 'approved' | 'rejected'): ApprovalClosing => {
  const about = { request, teamName: 'Platform', requester: 'U0RUNNER' };
  return kind === 'approved'
    ? { ...about, kind, approver: 'U0SECOND', guid: 'guid-approved', carded: true }
    : { ...about, kind, by: 'U0NO' };
};

async function finishedCard(guid: string) {
  await new CardStore(store).saveStarted(
    startedCard({
      guid,
      teamId: 'team-1',
      teamName: 'Platform',
      channel: 'C0FLOW',
      ts: '1.1',
      startedBy: actor,
      stage: 'End',
      lifecycle: 'Complete',
    }),
  );
}

describe('whom a step acts for', () => {
  it('is the person of a user context only: a plain user id, a bad id or a missing secret is nobody', () => {
    expect(vouchedPerson({ id: 'U0RUNNER', secret: 'abc' })).toBe('U0RUNNER');
    expect(vouchedPerson({ id: 'W0GRID', secret: 'abc' })).toBe('W0GRID');
    expect(vouchedPerson('U0RUNNER')).toBeUndefined();
    expect(vouchedPerson({ id: 'U0RUNNER' })).toBeUndefined();
    expect(vouchedPerson({ id: 'U0RUNNER', secret: '  ' })).toBeUndefined();
    expect(vouchedPerson({ id: 'C0CHANNEL', secret: 'abc' })).toBeUndefined();
    expect(vouchedPerson([{ id: 'U0RUNNER', secret: 'abc' }])).toBeUndefined();
    expect(vouchedPerson(null)).toBeUndefined();
  });
});

describe('a delivered run', () => {
  it('is taken once however often it is delivered, and held while it runs', async () => {
    const letGo = await workflow.take('Ex1');
    expect(letGo).toBeTypeOf('function');
    expect(await workflow.take('Ex1')).toBeUndefined();
    // Held: a replica looking for runs a stopped bot left passes it over until it is let go.
    expect(await store.claim(keys.stepLease.key('Ex1'), keys.stepLease.ttlMs, 'another replica')).toBe(false);
    await letGo!();
    expect(await store.claim(keys.stepLease.key('Ex1'), keys.stepLease.ttlMs, 'another replica')).toBe(true);
    // Let go is not taken again: the delivery was done.
    expect(await workflow.take('Ex1')).toBeUndefined();
  });
});

describe('a step waiting on a second person', () => {
  it('fails when the request closes without a start, saying why', async () => {
    await workflow.approvalClosed({ executionId: 'Ex1', waitForEnd: false }, closing('rejected'));
    expect(ended).toEqual([{ executionId: 'Ex1', failed: { kind: 'approval closed', closing: closing('rejected') } }]);
  });

  it('completes with the started attack when it does not wait for the end', async () => {
    await workflow.approvalClosed({ executionId: 'Ex1', waitForEnd: false }, closing('approved'));
    expect(ended).toEqual([{ executionId: 'Ex1', outputs: { attack_id: 'guid-approved' } }]);
  });

  it('waiting for the end, completes once, with the final stage, when the attack ends', async () => {
    await workflow.approvalClosed({ executionId: 'Ex1', waitForEnd: true }, closing('approved'));
    expect(ended).toEqual([]);
    await workflow.attackFinished({ guid: 'guid-other', stage: 'End' });
    expect(ended).toEqual([]);
    await workflow.attackFinished({ guid: 'guid-approved', stage: 'End' });
    await workflow.attackFinished({ guid: 'guid-approved', stage: 'End' });
    expect(ended).toEqual([{ executionId: 'Ex1', outputs: { attack_id: 'guid-approved', final_stage: 'End' } }]);
  });
});

describe('a start a stopped bot left, run by a step', () => {
  it('fails the step when nothing was started', async () => {
    await workflow.startEnded({ executionId: 'Ex1', waitForEnd: false }, { kind: 'not sent' });
    expect(ended).toEqual([{ executionId: 'Ex1', failed: { kind: 'start lost', news: { kind: 'not sent' } } }]);
  });

  it('completes at once, waiting for the end, when the attack ended while no bot ran', async () => {
    await finishedCard('guid-ended');
    await workflow.startEnded(
      { executionId: 'Ex1', waitForEnd: true },
      { kind: 'started', guid: 'guid-ended', carded: true },
    );
    expect(ended).toEqual([{ executionId: 'Ex1', outputs: { attack_id: 'guid-ended', final_stage: 'End' } }]);
  });

  it('waits, waiting for the end, when the attack still runs', async () => {
    await workflow.startEnded(
      { executionId: 'Ex1', waitForEnd: true },
      { kind: 'started', guid: 'guid-live', carded: true },
    );
    expect(ended).toEqual([]);
    await workflow.attackFinished({ guid: 'guid-live', stage: 'End' });
    expect(ended).toEqual([{ executionId: 'Ex1', outputs: { attack_id: 'guid-live', final_stage: 'End' } }]);
  });
});

describe('runs a stopped bot left', () => {
  it('does a step safe to do again again, and completes it with what it answers', async () => {
    await workflow.opened(run('ExHalt', HALT_ALL_STEP));
    answer = async () => ({ outputs: { halted: 2 } });
    expect(await workflow.recoverRuns()).toBe(1);
    expect(ranAgain.map((r) => r.executionId)).toEqual(['ExHalt']);
    expect(ended).toEqual([{ executionId: 'ExHalt', outputs: { halted: 2 } }]);
    // Finished: a second pass (another replica, or the next one) finds nothing left.
    expect(await workflow.recoverRuns()).toBe(0);
    expect(ended).toHaveLength(1);
  });

  it("fails a run done again with the step's own words, or when it throws", async () => {
    await workflow.opened(run('ExFreeze', FREEZE_STEP));
    answer = async () => ({ error: 'Chaos is already frozen.' });
    await workflow.recoverRuns();
    await workflow.opened(run('ExHalt', HALT_ALL_STEP));
    const broken = new Error('the platform is down');
    answer = async () => {
      throw broken;
    };
    await workflow.recoverRuns();
    expect(ended).toEqual([
      { executionId: 'ExFreeze', failed: { kind: 'said', text: 'Chaos is already frozen.' } },
      { executionId: 'ExHalt', failed: { kind: 'error', error: broken } },
    ]);
  });

  it('never does again a step that is not safe to repeat: it fails once, naming the step', async () => {
    await workflow.opened(run('ExGameDay', START_GAME_DAY_STEP));
    expect(await workflow.recoverRuns()).toBe(1);
    expect(ranAgain).toEqual([]);
    expect(ended).toEqual([
      { executionId: 'ExGameDay', failed: { kind: 'run lost', title: `step ${START_GAME_DAY_STEP}` } },
    ]);
  });

  it('gives a Run saved attack the outcome of its recorded start, never starting it again', async () => {
    await workflow.opened(run('ExSaved', RUN_SAVED_ATTACK_STEP, { wait_for_end: false }));
    await store.set(keys.stepStarted.key('ExSaved'), 'guid-saved', keys.stepStarted.ttlMs);
    await workflow.opened(run('ExUnsent', RUN_SAVED_ATTACK_STEP, { wait_for_end: false }));
    expect(await workflow.recoverRuns()).toBe(2);
    expect(ranAgain).toEqual([]);
    expect(ended).toEqual([
      { executionId: 'ExSaved', outputs: { attack_id: 'guid-saved' } },
      { executionId: 'ExUnsent', failed: { kind: 'start lost', news: { kind: 'unconfirmed', candidates: [] } } },
    ]);
  });

  it('passes over a run still held by a live process, a start still to finish, and a closed run', async () => {
    const letGo = await workflow.take('ExHeld');
    await workflow.opened(run('ExHeld', HALT_ALL_STEP));
    await workflow.opened(run('ExStarting', RUN_SAVED_ATTACK_STEP));
    await store.set(
      keys.startIntent.key('intent-1'),
      { workflowStep: { executionId: 'ExStarting', waitForEnd: false } },
      keys.startIntent.ttlMs,
    );
    await workflow.opened(run('ExDone', HALT_ALL_STEP));
    await workflow.closed('ExDone');
    expect(await workflow.recoverRuns()).toBe(0);
    expect(ended).toEqual([]);
    // Once its process lets it go, the held run is finished by whoever looks next.
    await letGo!();
    expect(await workflow.recoverRuns()).toBe(1);
    expect(ended).toEqual([{ executionId: 'ExHeld', outputs: { halted: 0 } }]);
  });
});
