import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logger.ts';
import { describeError } from '../views/errorReply.ts';
import {
  stepApprovalClosedText,
  stepErrorText,
  stepRunLostText,
  stepStartLostText,
} from '../views/workflow/workflowSteps.ts';
import type { StepEnds, StepFailure } from '../workflow/service.ts';

/** Completes or fails Workflow Builder steps after their delivery, with the bot token, in the views' words. */
export class SlackStepEnds implements StepEnds {
  readonly #client: WebClient;
  readonly #logger: Logger;
  readonly #command: string;

  constructor(client: WebClient, logger: Logger, command: string) {
    this.#client = client;
    this.#logger = logger;
    this.#command = command;
  }

  async complete(executionId: string, outputs: Record<string, unknown>): Promise<void> {
    try {
      await this.#client.functions.completeSuccess({ function_execution_id: executionId, outputs });
    } catch (error) {
      this.#logger.warn({ err: error }, 'could not complete a workflow step');
    }
  }

  async fail(executionId: string, why: StepFailure): Promise<void> {
    try {
      await this.#client.functions.completeError({ function_execution_id: executionId, error: this.#words(why) });
    } catch (failure) {
      this.#logger.warn({ err: failure }, 'could not fail a workflow step');
    }
  }

  #words(why: StepFailure): string {
    const command = this.#command;
    switch (why.kind) {
      case 'approval closed':
        return stepApprovalClosedText(why.closing, command);
      case 'start lost':
        return stepStartLostText(why.news, command);
      case 'run lost':
        return stepRunLostText(why.title, command);
      case 'error':
        return stepErrorText(describeError(why.error, { command }).text);
      case 'said':
        return why.text;
    }
  }
}
