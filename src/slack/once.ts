import { randomUUID } from 'node:crypto';
import { NoTeamSelectedError, NotLoggedInError, UserInputError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';

/** What a request sent again gets, and which answer refused the input (nothing was done). */
export interface OnceAnswers<R> {
  /** The answer to a request sent again: nothing, or a bare ack. */
  none: R;
  /** An answer that refused the input (field errors): nothing was done. */
  refused?: ((reply: R) => boolean) | undefined;
}

/** Input refused before anything was done: the person may send it again, corrected. */
const refusedInput = (error: unknown) =>
  error instanceof UserInputError || error instanceof NotLoggedInError || error instanceof NoTeamSelectedError;

/**
 * Runs what a request that changes state asked for, once per delivery (Slack's id of this very
 * request: a trigger id, a view's id and hash). Slack's signature on a request holds for five
 * minutes, so anyone who saw one can send it again byte for byte (and Socket Mode may deliver one
 * twice): the delivery is claimed before the work runs, and every later time changes nothing and
 * gets no answer. Work that refuses its input before doing anything (field errors, a
 * UserInputError, no session) gives the claim back, so the corrected form or command is taken.
 */
export async function oncePerDelivery<R>(
  parts: { store: KeyValueStore; logger: Logger },
  delivery: string | undefined,
  work: () => Promise<R>,
  answers: OnceAnswers<R>,
): Promise<R> {
  if (!delivery) return work();
  const key = keys.delivery.key(delivery);
  const owner = randomUUID();
  if (!(await parts.store.claim(key, keys.delivery.ttlMs, owner))) {
    parts.logger.info('a request came again; what it asked was done once');
    return answers.none;
  }
  const giveBack = () => parts.store.release(key, owner).then(() => undefined);
  let reply: R;
  try {
    reply = await work();
  } catch (error) {
    if (refusedInput(error)) await giveBack().catch(() => undefined);
    throw error;
  }
  if (answers.refused?.(reply)) await giveBack();
  return reply;
}
