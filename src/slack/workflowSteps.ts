import { randomUUID } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { CardRecord } from '../attacks/cards.ts';
import { isLive } from '../attacks/lifecycle.ts';
import { holdLease, type StartIntent, type StartNews } from '../attacks/startIntents.ts';
import type { Deps } from '../deps.ts';
import type { ApprovalClosing, WaitingWorkflowStep, WorkflowSteps } from '../guardrails/approvals.ts';
import type { Logger } from '../logger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import type { Actor } from '../store/sessions.ts';
import { describeError } from '../views/errorReply.ts';
import {
  END_GAME_DAY_STEP,
  FREEZE_STEP,
  HALT_ALL_STEP,
  RUN_SAVED_ATTACK_STEP,
  stepApprovalClosedText,
  stepErrorText,
  stepRunLostText,
  stepStartLostText,
  UNFREEZE_STEP,
} from '../views/workflow/workflowSteps.ts';

/** The step input naming the person it acts for: declared `slack#/types/user_context` in manifest.yml. */
export const STEP_PERSON_INPUT = 'user';

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

/** The steps' handlers (the listener table's), for doing a step run again. */
export type WorkflowStepHandlers = Record<
  string,
  (
    request: { actor: Actor; inputs: Record<string, unknown>; executionId: string },
    deps: Deps,
  ) => Promise<{ outputs: Record<string, unknown> } | { error: string } | { later: true }>
>;

/** Steps whose second run does what the first would have: a halt, a freeze, an end already done is no harm. */
const safeAgain = new Set([HALT_ALL_STEP, FREEZE_STEP, UNFREEZE_STEP, END_GAME_DAY_STEP]);

/**
 * Finishes Workflow Builder steps after their delivery, with the bot token: Run saved attack
 * waiting on a second person (completed once approved and started, failed otherwise) or on the
 * end of the attack it started (completed with the final stage).
 */
export class SlackWorkflowSteps implements WorkflowSteps {
  readonly #client: WebClient;
  readonly #store: Pick<KeyValueStore, 'get' | 'set' | 'delete' | 'claim'>;
  readonly #logger: Logger;
  readonly #command: string;
  readonly #handlers: WorkflowStepHandlers;

  constructor(
    client: WebClient,
    store: Pick<KeyValueStore, 'get' | 'set' | 'delete' | 'claim'>,
    logger: Logger,
    command: string,
    handlers: WorkflowStepHandlers,
  ) {
    this.#client = client;
    this.#handlers = handlers;
    this.#store = store;
    this.#logger = logger;
    this.#command = command;
  }

  async approvalClosed(step: WaitingWorkflowStep, closing: ApprovalClosing): Promise<void> {
    if (closing.kind !== 'approved') {
      await this.#fail(step.executionId, stepApprovalClosedText(closing, this.#command));
      return;
    }
    if (step.waitForEnd) await this.waitForEnd(step.executionId, closing.guid);
    else await this.#complete(step.executionId, { attack_id: closing.guid });
  }

  async waitForEnd(executionId: string, guid: string): Promise<void> {
    await this.#store.set(keys.stepWait.key(guid), { executionId }, keys.stepWait.ttlMs);
  }

  async attackFinished(card: Pick<CardRecord, 'guid' | 'stage'>): Promise<void> {
    const waiting = await this.#store.get<{ executionId: string }>(keys.stepWait.key(card.guid));
    if (!waiting) return;
    if (!(await this.#store.claim(keys.stepWaitDone.key(card.guid), keys.stepWaitDone.ttlMs))) return;
    await this.#complete(waiting.executionId, { attack_id: card.guid, final_stage: card.stage });
    await this.#store.delete(keys.stepWait.key(card.guid));
  }

  async startEnded(step: WaitingWorkflowStep, news: StartNews): Promise<void> {
    if (news.kind !== 'started') await this.#fail(step.executionId, stepStartLostText(news, this.#command));
    else if (step.waitForEnd) {
      await this.waitForEnd(step.executionId, news.guid);
      // The attack may have ended while no bot ran: then no end is left to see.
      const card = await this.#store.get<CardRecord>(keys.card.key(news.guid));
      if (card && !isLive(card)) await this.attackFinished(card);
    } else await this.#complete(step.executionId, { attack_id: news.guid });
  }

  async recoverRuns(deps: Deps): Promise<number> {
    let finished = 0;
    try {
      const runs: WorkflowStepRun[] = [];
      for await (const [, run] of deps.store.entries<WorkflowStepRun>(keys.stepOpen.prefix)) runs.push(run);
      if (runs.length === 0) return 0;
      // A start still to finish finishes its step itself (recover-starts).
      const starting = new Set<string>();
      for await (const [, intent] of deps.store.entries<StartIntent>(keys.startIntent.prefix))
        if (intent.workflowStep) starting.add(intent.workflowStep.executionId);
      for (const { executionId } of runs) {
        if (starting.has(executionId)) continue;
        const owner = randomUUID();
        // Held: a run under way in a live process, or being finished by another replica.
        if (!(await deps.store.claim(keys.stepLease.key(executionId), keys.stepLease.ttlMs, owner))) continue;
        const letGo = holdLease(deps.store, 'step', executionId, owner);
        try {
          const run = await deps.store.get<WorkflowStepRun>(keys.stepOpen.key(executionId));
          if (!run) continue;
          await this.#finishLeft(deps, run);
          await deps.store.delete(keys.stepOpen.key(executionId));
          finished++;
          deps.logger.info({ step: run.callbackId }, 'finished a step run a stopped bot left');
        } catch (error) {
          deps.logger.warn({ err: error }, 'could not finish a step run a stopped bot left; trying again');
        } finally {
          await letGo().catch(() => undefined);
        }
      }
    } catch (error) {
      deps.logger.warn({ err: error }, 'could not look for step runs a stopped bot left');
    }
    return finished;
  }

  async #finishLeft(deps: Deps, run: WorkflowStepRun): Promise<void> {
    const { executionId } = run;
    if (run.callbackId === RUN_SAVED_ATTACK_STEP) {
      const guid = await deps.store.get<string>(keys.stepStarted.key(executionId));
      const waitForEnd = run.inputs['wait_for_end'] === true;
      // No start left and none recorded: it stopped before its start, or its approval request carries it on.
      await this.startEnded(
        { executionId, waitForEnd },
        guid ? { kind: 'started', guid, carded: true } : { kind: 'unconfirmed', candidates: [] },
      );
      return;
    }
    const handler = this.#handlers[run.callbackId];
    if (!handler || !safeAgain.has(run.callbackId)) {
      await this.#fail(executionId, stepRunLostText(run.title, this.#command));
      return;
    }
    const result = await handler({ actor: run.actor, inputs: run.inputs, executionId }, deps).catch(
      (error: unknown): { error: string } => ({
        error: stepErrorText(describeError(error, { command: this.#command }).text),
      }),
    );
    if ('outputs' in result) await this.#complete(executionId, result.outputs);
    else if ('error' in result) await this.#fail(executionId, result.error);
  }

  async #complete(executionId: string, outputs: Record<string, unknown>): Promise<void> {
    try {
      await this.#client.functions.completeSuccess({ function_execution_id: executionId, outputs });
    } catch (error) {
      this.#logger.warn({ err: error }, 'could not complete a workflow step');
    }
  }

  async #fail(executionId: string, error: string): Promise<void> {
    try {
      await this.#client.functions.completeError({ function_execution_id: executionId, error });
    } catch (failure) {
      this.#logger.warn({ err: failure }, 'could not fail a workflow step');
    }
  }
}
