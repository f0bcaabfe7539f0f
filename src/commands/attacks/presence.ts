import type { Services } from '../../services.ts';
import { UserInputError } from '../../errors.ts';
import { parseAttackRef } from '../../views/attacks/attackCard.ts';
import { presenceAnswerText, presenceClosed } from '../../views/attacks/presence.ts';
import { type Action, type Reply, replacement } from '../command.ts';

/** Still here, on a "Still watching?" message: the attack runs on, and the question says so. */
export async function stillHere(action: Action, { attacks }: Services): Promise<Reply> {
  const ref = parseAttackRef(action.value);
  if (!ref) throw new UserInputError('That button no longer points at an attack.');
  // A Still here sent again must not keep an attack running that nobody watches any more.
  const { answer, card, minutes } = await attacks.stillHere(action.actor, ref.guid);
  if (answer !== 'noted') return replacement(presenceAnswerText(answer));
  const closed = card ? presenceClosed(card, 'here', minutes) : { text: presenceAnswerText('not running') };
  return replacement(closed.text, closed.blocks);
}
