// Workflow Builder steps: whom a step acts for, that a run is taken once, and how a step ends
// once its delivery is over (an approval answered, an attack ended, a run a stopped bot left).
import type { CardRecord } from '../attacks/cards.ts';
import { isLive } from '../attacks/lifecycle.ts';
import type { StartIntent, StartNews } from '../attacks/start.ts';
import type { ApprovalClosing, WaitingWorkflowStep, WorkflowSteps } from '../guardrails/approvals.ts';
import type { Logger } from '../logger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import { holdLease, takeLease } from '../store/leases.ts';
import type { Actor } from '../store/sessions.ts';

/** The step input naming the person it acts for: declared `slack#/types/user_context` in manifest.yml. */
export const STEP_PERSON_INPUT = 'user';

/** The custom steps' callback ids, as manifest.yml declares them under `functions`. */
export const HALT_ALL_STEP = 'halt_all_attacks';
export const FREEZE_STEP = 'freeze_chaos';
export const UNFREEZE_STEP = 'unfreeze_chaos';
export const START_GAME_DAY_STEP = 'start_game_day';
export const RUN_SAVED_ATTACK_STEP = 'run_saved_attack';
export const END_GAME_DAY_STEP = 'end_game_day';

/**
 * The person a step acts for: only a user context, `{ id, secret }`, which Slack fills with the
 * person who used the workflow and a builder cannot set. A plain user id (a builder's choice of
 * colleague, or an app configuration on an older manifest), or anything else, is nobody.
 */
export function vouchedPerson(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { id, secret } = value as Record<string, unknown>;
  if (typeof id !== 'string' || !/^[UW][A-Z0-9]+$/.test(id)) return undefined;
  if (typeof secret !== 'string' || secret.trim() === '') return undefined;
  return id;
}

/** A step run under way, written once its person is known and gone once it is finished or handed on. */
export interface WorkflowStepRun {
  executionId: string;
  callbackId: string;
  title: string;
  actor: Actor;
  inputs: Record<string, unknown>;
}

export type StepResult = { outputs: Record<string, unknown> } | { error: string } | { later: true };

/** Why a step failed after its delivery; src/slack/workflowSteps.ts words it. */
export type StepFailure =
  | { kind: 'approval closed'; closing: ApprovalClosing }
  | { kind: 'start lost'; news: StartNews }
  | { kind: 'run lost'; title: string }
  /** A run done again threw. */
  | { kind: 'error'; error: unknown }
  /** The step's own words. */
  | { kind: 'said'; text: string };

/** Where a step is completed or failed: Slack's `functions.complete…` calls. */
export interface StepEnds {
  complete(executionId: string, outputs: Record<string, unknown>): Promise<void>;
  fail(executionId: string, why: StepFailure): Promise<void>;
}

export interface WorkflowParts {
  store: Pick<KeyValueStore, 'get' | 'set' | 'delete' | 'claim' | 'release' | 'entries'>;
  logger: Logger;
  ends: StepEnds;
  /** Runs a step again, as its delivery would have: the listener table's handler. */
  runAgain(run: WorkflowStepRun): Promise<StepResult>;
}

/** Steps whose second run does what the first would have: a halt, a freeze, an end already done is no harm. */
const safeAgain = new Set([HALT_ALL_STEP, FREEZE_STEP, UNFREEZE_STEP, END_GAME_DAY_STEP]);

export class WorkflowService implements WorkflowSteps {
  readonly #parts: WorkflowParts;

  constructor(parts: WorkflowParts) {
    this.#parts = parts;
  }

  /**
   * Takes a delivered run once, however often Slack delivers it, and holds it while it runs: the
   * returned function lets it go. Undefined when another delivery took it.
   */
  async take(executionId: string): Promise<(() => Promise<void>) | undefined> {
    const { store } = this.#parts;
    if (!(await store.claim(keys.stepRun.key(executionId), keys.stepRun.ttlMs))) return undefined;
    // Held while the step runs: a replica finishes it only once this process is gone (recoverRuns).
    return holdLease(store, keys.stepLease.key(executionId), keys.stepLease.ttlMs);
  }

  /** From here the step may act: a bot that dies before it finishes leaves this for recoverRuns. */
  async opened(run: WorkflowStepRun): Promise<void> {
    await this.#parts.store.set(keys.stepOpen.key(run.executionId), run, keys.stepOpen.ttlMs);
  }

  /** The run is answered (or handed on to what it waits for). */
  async closed(executionId: string): Promise<void> {
    await this.#parts.store.delete(keys.stepOpen.key(executionId));
  }

  async approvalClosed(step: WaitingWorkflowStep, closing: ApprovalClosing): Promise<void> {
    if (closing.kind !== 'approved')
      await this.#parts.ends.fail(step.executionId, { kind: 'approval closed', closing });
    else if (step.waitForEnd) await this.waitForEnd(step.executionId, closing.guid);
    else await this.#parts.ends.complete(step.executionId, { attack_id: closing.guid });
  }

  async waitForEnd(executionId: string, guid: string): Promise<void> {
    await this.#parts.store.set(keys.stepWait.key(guid), { executionId }, keys.stepWait.ttlMs);
  }

  async attackFinished(card: Pick<CardRecord, 'guid' | 'stage'>): Promise<void> {
    const { store, ends } = this.#parts;
    const waiting = await store.get<{ executionId: string }>(keys.stepWait.key(card.guid));
    if (!waiting) return;
    if (!(await store.claim(keys.stepWaitDone.key(card.guid), keys.stepWaitDone.ttlMs))) return;
    await ends.complete(waiting.executionId, { attack_id: card.guid, final_stage: card.stage });
    await store.delete(keys.stepWait.key(card.guid));
  }

  async startEnded(step: WaitingWorkflowStep, news: StartNews): Promise<void> {
    if (news.kind !== 'started') await this.#parts.ends.fail(step.executionId, { kind: 'start lost', news });
    else if (step.waitForEnd) {
      await this.waitForEnd(step.executionId, news.guid);
      // The attack may have ended while no bot ran: then no end is left to see.
      const card = await this.#parts.store.get<CardRecord>(keys.card.key(news.guid));
      if (card && !isLive(card)) await this.attackFinished(card);
    } else await this.#parts.ends.complete(step.executionId, { attack_id: news.guid });
  }

  /**
   * Finishes every step run a stopped bot left: one safe to do again is done again, a Run
   * saved attack takes the outcome of its start, any other fails once saying what to check.
   */
  async recoverRuns(): Promise<number> {
    const { store, logger } = this.#parts;
    let finished = 0;
    try {
      const runs: WorkflowStepRun[] = [];
      for await (const [, run] of store.entries<WorkflowStepRun>(keys.stepOpen.prefix)) runs.push(run);
      if (runs.length === 0) return 0;
      // A start still to finish finishes its step itself (recover-starts).
      const starting = new Set<string>();
      for await (const [, intent] of store.entries<StartIntent>(keys.startIntent.prefix))
        if (intent.workflowStep) starting.add(intent.workflowStep.executionId);
      for (const { executionId } of runs) {
        if (starting.has(executionId)) continue;
        // Held: a run under way in a live process, or being finished by another replica.
        const letGo = await takeLease(store, keys.stepLease.key(executionId), keys.stepLease.ttlMs);
        if (!letGo) continue;
        try {
          const run = await store.get<WorkflowStepRun>(keys.stepOpen.key(executionId));
          if (!run) continue;
          await this.#finishLeft(run);
          await store.delete(keys.stepOpen.key(executionId));
          finished++;
          logger.info({ step: run.callbackId }, 'finished a step run a stopped bot left');
        } catch (error) {
          logger.warn({ err: error }, 'could not finish a step run a stopped bot left; trying again');
        } finally {
          await letGo().catch(() => undefined);
        }
      }
    } catch (error) {
      logger.warn({ err: error }, 'could not look for step runs a stopped bot left');
    }
    return finished;
  }

  async #finishLeft(run: WorkflowStepRun): Promise<void> {
    const { store, ends, runAgain } = this.#parts;
    const { executionId } = run;
    if (run.callbackId === RUN_SAVED_ATTACK_STEP) {
      const guid = await store.get<string>(keys.stepStarted.key(executionId));
      const waitForEnd = run.inputs['wait_for_end'] === true;
      // No start left and none recorded: it stopped before its start, or its approval request carries it on.
      await this.startEnded(
        { executionId, waitForEnd },
        guid ? { kind: 'started', guid, carded: true } : { kind: 'unconfirmed', candidates: [] },
      );
      return;
    }
    if (!safeAgain.has(run.callbackId)) {
      await ends.fail(executionId, { kind: 'run lost', title: run.title });
      return;
    }
    const result = await runAgain(run).catch((error: unknown) => ({ failed: error }));
    if ('outputs' in result) await ends.complete(executionId, result.outputs);
    else if ('error' in result) await ends.fail(executionId, { kind: 'said', text: result.error });
    else if ('failed' in result) await ends.fail(executionId, { kind: 'error', error: result.failed });
  }
}
