import { answerPresence } from '../../attacks/presence.ts';
import type { Deps } from '../../deps.ts';
import { UserInputError } from '../../errors.ts';
import { parseAttackRef } from '../../views/attacks/attackCard.ts';
import { presenceAnswerText, presenceClosed } from '../../views/attacks/presence.ts';
import { type Action, type Reply, replacement } from '../reply.ts';

/** Still here, on a "Still watching?" message: the attack runs on, and the question says so. */
export async function stillHere(action: Action, deps: Deps): Promise<Reply> {
  const ref = parseAttackRef(action.value);
  if (!ref) throw new UserInputError('That button no longer points at an attack.');
  // A Still here sent again must not keep an attack running that nobody watches any more.
  const answer = await answerPresence(deps, ref.guid, action.actor);
  if (answer !== 'noted') return replacement(presenceAnswerText(answer));
  const card = await deps.cards.get(ref.guid);
  const closed = card
    ? presenceClosed(card, 'here', deps.config.presenceMinutes)
    : { text: presenceAnswerText('not running') };
  return replacement(closed.text, closed.blocks);
}
