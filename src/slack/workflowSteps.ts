import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { UnauthorizedError } from '../client/errors.ts';
import type { WorkflowStepHandler, WorkflowStepResult } from '../commands/command.ts';
import { NotLoggedInError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Actor } from '../store/sessions.ts';
import { describeError } from '../views/errorReply.ts';
import {
  stepApprovalClosedText,
  stepErrorText,
  stepFailedText,
  stepLoginPrompt,
  stepNotLoggedInText,
  stepPersonUnvouchedText,
  stepRestartingText,
  stepRunLostText,
  stepStartLostText,
} from '../views/workflow/workflowSteps.ts';
import type { Listeners, SlackAdapter } from './adapter.ts';
import { actorFrom, type BodyIdentity } from './interactions.ts';
import { STEP_PERSON_INPUT, type StepEnds, type StepFailure, vouchedPerson } from '../workflow/service.ts';

type StepEvent = { inputs: Record<string, unknown>; function_execution_id: string; function: { title: string } };

/**
 * Workflow Builder steps. Bolt acks function_executed before this runs, well within Slack's 3
 * seconds; the step is then completed or failed through the Web API, once, however often Slack
 * delivers it: its execution is claimed, and a lease held while it runs.
 */
export function listenToWorkflowSteps(app: App, adapter: SlackAdapter, steps: Listeners['steps']): void {
  const { deps } = adapter;
  for (const [callbackId, handler] of Object.entries(steps)) {
    app.function(callbackId, async ({ body, event, complete, fail }) => {
      const finish = async (result: WorkflowStepResult) => {
        if ('outputs' in result) await complete({ outputs: result.outputs });
        else if ('error' in result) await fail({ error: result.error });
      };
      await adapter.track(
        'step',
        async () => {
          const executionId = event.function_execution_id;
          let letGo: (() => Promise<void>) | undefined;
          try {
            letGo = await deps.workflow.take(executionId);
          } catch (error) {
            // Nothing was done: the step says so rather than stay running.
            deps.logger.warn({ err: error, step: callbackId }, 'store unreachable');
            await finish({ error: stepErrorText(describeError(error, { command: deps.command }).text) });
            return;
          }
          if (!letGo) {
            deps.logger.info({ step: callbackId }, 'a step delivered again was already taken');
            return;
          }
          try {
            const result = await runStep(adapter, handler, body, event, callbackId);
            try {
              await finish(result);
            } catch (error) {
              // Outputs Slack refused: the step must still end, and say it could not finish.
              deps.logger.error({ err: error, step: callbackId }, 'could not complete a step');
              if (!fail.hasBeenCalled()) await fail({ error: stepFailedText });
            }
            await deps.workflow.closed(executionId);
          } finally {
            await letGo().catch(() => undefined);
          }
        },
        () => finish({ error: stepRestartingText }).then(() => undefined),
      );
    });
  }
}

/**
 * Runs a step as the person who used the workflow, as Slack vouches for them in its `user`
 * input (a user context), in the channel of its `channel` input if any. Any other person is
 * refused before anything is done. A failure becomes the step's error; a person not logged in
 * also gets the Log in entry by DM.
 */
async function runStep(
  adapter: SlackAdapter,
  handler: WorkflowStepHandler,
  body: BodyIdentity,
  event: StepEvent,
  callbackId: string,
): Promise<WorkflowStepResult> {
  const { deps } = adapter;
  const { function_execution_id: executionId } = event;
  const { [STEP_PERSON_INPUT]: person, ...inputs } = event.inputs;
  const title = event.function.title;
  const userId = vouchedPerson(person);
  if (userId === undefined) {
    deps.logger.warn({ step: callbackId }, 'a step whose person Slack did not vouch for was refused');
    return { error: stepPersonUnvouchedText };
  }
  const channel = typeof inputs['channel'] === 'string' && inputs['channel'] ? inputs['channel'] : undefined;
  const workspace = body.enterprise_id ? { enterprise_id: body.enterprise_id } : {};
  let actor: Actor;
  try {
    actor = { ...actorFrom({ user_id: userId, team_id: body.team_id ?? '', ...workspace }), channelId: channel };
  } catch {
    return { error: stepFailedText };
  }
  actor.userName = await deps.attacks.personName(userId).catch(() => userId);
  try {
    // From here the step may act: a bot that dies before it finishes leaves this for recover-steps.
    await deps.workflow.opened({ executionId, callbackId, title, actor, inputs });
    return await handler({ actor, inputs, executionId }, deps);
  } catch (error) {
    const words = await adapter.explain(actor, error);
    if (error instanceof NotLoggedInError || error instanceof UnauthorizedError) {
      await deps.slack
        .post(actor.userId, stepLoginPrompt(title))
        .catch((dmError: unknown) => deps.logger.warn({ err: dmError }, 'could not send the login entry'));
      return { error: stepNotLoggedInText };
    }
    return { error: stepErrorText(words.text) };
  }
}

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
