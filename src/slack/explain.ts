import { ForbiddenError, PlatformError, UnauthorizedError } from '../client/errors.ts';
import { StartUnfinishedError } from '../attacks/start.ts';
import type { Services } from '../services.ts';
import { NotLoggedInError, UserInputError } from '../errors.ts';
import type { Metrics } from '../metrics.ts';
import { StoreUnavailableError } from '../store/errors.ts';
import type { Actor } from '../store/sessions.ts';
import { describeError } from '../views/errorReply.ts';
import type { Message } from '../views/message.ts';

/**
 * Turns a handler's failure into words for the person who acted (describeError). A 401, or a
 * session found expired, drops the stored session first, so the words offer Log in; the failure
 * is logged as loud as it deserves: input refused or no session is not the bot's fault.
 */
export function explainFailure({ login, logger, command }: Services, metrics: Metrics) {
  return async (actor: Actor, error: unknown): Promise<Message> => {
    if (error instanceof UnauthorizedError || (error instanceof NotLoggedInError && error.expired)) {
      await login
        .forget(actor)
        .catch((dropError: unknown) => logger.error({ err: dropError }, 'could not drop a rejected session'));
    }
    if (error instanceof ForbiddenError && error.privilege) {
      // The person's role, not a fault of the bot: they are told which privilege; no stack trace.
      metrics.platformErrors.inc({ type: error.name });
      const { privilege, method, path } = error;
      logger.info({ userId: actor.userId, privilege, method, path }, 'the platform refused a person a privilege');
    } else if (error instanceof PlatformError) {
      metrics.platformErrors.inc({ type: error.name });
      logger.warn({ err: error }, 'platform call failed');
    } else if (
      error instanceof StoreUnavailableError ||
      (error instanceof StartUnfinishedError && error.cause instanceof StoreUnavailableError)
    ) {
      logger.warn({ err: error }, 'store unreachable');
    } else if (
      !(error instanceof UserInputError) &&
      !(error instanceof NotLoggedInError) &&
      !(error instanceof Error && error.name === 'NoTeamSelectedError')
    ) {
      logger.error({ err: error }, 'handler failed');
    }
    return describeError(error, { command });
  };
}
