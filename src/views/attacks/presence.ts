import type { CardRecord } from '../../attacks/cards.ts';
import type { PresenceAnswer, PresenceClosed } from '../../attacks/presence.ts';
import { attackRefValue, haltButton } from './attackCard.ts';
import { actions, button, escapeMrkdwn, section, plural } from '../blocks.ts';
import { type Message, textMessage } from '../message.ts';

/** Still here, on a "Still watching?" message. */
export const PRESENCE_HERE = 'presence_here';

type AskedAbout = Pick<CardRecord, 'guid' | 'teamId' | 'kind' | 'type' | 'channel' | 'targetWords'>;

/** The attack as a "Still watching?" message names it. */
const attackWords = (card: AskedAbout) =>
  `the *${escapeMrkdwn(card.type)}* attack \`${card.guid}\` on ${escapeMrkdwn(card.targetWords)} in <#${card.channel}>`;

/** To the attack's attendant, every PRESENCE_MINUTES while it runs: Still here, or Halt. */
export function presenceQuestion(card: AskedAbout, minutes: number): Message {
  const text = `:eyes: Still watching ${attackWords(card)}? It has run another ${plural(minutes, 'minute')}. Without an answer within 5 minutes it is halted: nobody was watching.`;
  return {
    text,
    blocks: [
      section(text),
      actions('presence_answer', [
        button('Still here', PRESENCE_HERE, { style: 'primary', value: attackRefValue(card) }),
        haltButton(card),
      ]),
    ],
  };
}

/** In the card's thread: nobody answered, and no stored session could halt the attack. */
export function unwatchedUnhalted(card: AskedAbout, askedOf: string): Message {
  const text = `:zzz: Nobody watches this attack: <@${askedOf}> did not answer "Still watching?" within 5 minutes, and Faultline holds no session that can halt it. Halt it here.`;
  return { text, blocks: [section(text), actions('presence_unhalted', [haltButton(card)])] };
}

/** The question once closed, its buttons gone: what became of it. */
export function presenceClosed(card: AskedAbout, closed: PresenceClosed, minutes: number): Message {
  const text =
    closed === 'here'
      ? `:white_check_mark: Thanks: ${attackWords(card)} runs on. You will be asked again in ${plural(minutes, 'minute')}.`
      : closed === 'halted'
        ? `:zzz: Nobody answered within 5 minutes, so ${attackWords(card)} was halted: nobody was watching.`
        : `:information_source: ${attackWords(card)} no longer runs: nothing to answer.`;
  return textMessage(text);
}

/** What Still here answers when there was nothing to note. */
export function presenceAnswerText(answer: Exclude<PresenceAnswer, 'noted'>): string {
  return answer === 'not running'
    ? ':information_source: That attack no longer runs: nothing to answer.'
    : ':information_source: Nobody is waiting for an answer about that attack now.';
}
