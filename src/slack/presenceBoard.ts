import type { CardRecord, MessageRef } from '../attacks/cards.ts';
import type { PresenceBoard, PresenceClosed } from '../attacks/presence.ts';
import type { Person } from '../store/sessions.ts';
import { presenceClosed, presenceQuestion, unwatchedUnhalted } from '../views/attacks/presence.ts';
import type { Messenger } from './messenger.ts';

/** "Still watching?" by direct message, and the question closed once answered or moot. */
export class SlackPresenceBoard implements PresenceBoard {
  readonly #messenger: Pick<Messenger, 'post' | 'update'>;

  constructor(messenger: Pick<Messenger, 'post' | 'update'>) {
    this.#messenger = messenger;
  }

  ask(person: Person, card: CardRecord, minutes: number): Promise<MessageRef> {
    return this.#messenger.post(person.userId, presenceQuestion(card, minutes));
  }

  async cannotHalt(card: CardRecord, askedOf: Person): Promise<void> {
    await this.#messenger.post(card.channel, unwatchedUnhalted(card, askedOf.userId), { threadTs: card.ts });
  }

  close(message: MessageRef, card: CardRecord, closed: PresenceClosed, minutes: number): void {
    this.#messenger.update(message.channel, message.ts, presenceClosed(card, closed, minutes), 'urgent');
  }
}
