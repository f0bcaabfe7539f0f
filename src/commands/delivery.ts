import type { Deps } from '../deps.ts';
import { keys } from '../store/keys.ts';

/** A request as Slack delivered it: `delivery` is the same each time that very request comes. */
export interface Delivered {
  delivery?: string | undefined;
}

/**
 * True the first time a request that changes something comes. Slack's signature on a request
 * holds for five minutes, so anyone who saw one can send it again byte for byte (and Socket Mode
 * may deliver one twice): every later time changes nothing, and gets no answer.
 */
export async function firstDelivery(deps: Deps, request: Delivered): Promise<boolean> {
  if (!request.delivery || (await deps.store.claim(keys.delivery.key(request.delivery), keys.delivery.ttlMs)))
    return true;
  deps.logger.info('a request came again; what it asked was done once');
  return false;
}
