import type { CardRecord, MessageRef } from '../attacks/cards.ts';
import type { WatchBoard } from '../attacks/watchCards.ts';
import type { Watch } from '../attacks/watches.ts';
import type { Attack } from '../client/index.ts';
import { attackCardMessage } from '../views/attacks/attackCard.ts';
import { platformTargetWords } from '../views/attacks/target.ts';
import { watchPausedMessage } from '../views/attacks/watch.ts';
import type { Messenger } from './messenger.ts';

/** Watched channels: the cards of attacks found in their teams, and the notice that a watch paused. */
export class SlackWatchBoard implements WatchBoard {
  readonly #messenger: Pick<Messenger, 'post'>;
  readonly #appUrl: string | undefined;
  readonly #command: string;

  /** `appUrl` is the platform's web UI, for the cards' links; `command` the slash command, to renew a watch. */
  constructor(messenger: Pick<Messenger, 'post'>, options: { appUrl: string | undefined; command: string }) {
    this.#messenger = messenger;
    this.#appUrl = options.appUrl;
    this.#command = options.command;
  }

  async postCard(
    channel: string,
    card: CardRecord | Omit<CardRecord, 'targetWords'>,
    attack: Attack,
  ): Promise<{ message: MessageRef; card: CardRecord }> {
    const shown = 'targetWords' in card ? card : { ...card, targetWords: platformTargetWords(attack, card.teamName) };
    const message = await this.#messenger.post(channel, attackCardMessage(shown, { appUrl: this.#appUrl, channel }));
    return { message, card: shown };
  }

  async tellPaused(watch: Watch): Promise<void> {
    await this.#messenger.post(watch.channel, watchPausedMessage(watch, this.#command));
  }
}
