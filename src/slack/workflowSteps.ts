import type { WebClient } from '@slack/web-api';
import type { CardRecord } from '../attacks/cards.ts';
import type { ApprovalClosing, WaitingWorkflowStep, WorkflowSteps } from '../guardrails/approvals.ts';
import type { Logger } from '../logger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import { stepApprovalClosedText } from '../views/steps.ts';

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

  constructor(
    client: WebClient,
    store: Pick<KeyValueStore, 'get' | 'set' | 'delete' | 'claim'>,
    logger: Logger,
    command: string,
  ) {
    this.#client = client;
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
