// What the features post through the messenger, outside an attack's card and a game day: each
// class is the Slack side of an interface its feature declares, in the words of src/views.
import type { CardRecord, MessageRef } from '../attacks/cards.ts';
import type { ApprovalBoard, ApprovalClosing, ApprovalRequest } from '../guardrails/approvals.ts';
import { approvalClosedMessage, approvalRequestMessage } from '../views/guardrails/approval.ts';
import type { Messenger } from './messenger.ts';
import type { Freeze } from '../guardrails/freezes.ts';
import type { FreezeNotice, FreezeNotices } from '../guardrails/sweep.ts';
import { freezeNoticeText } from '../views/guardrails/freeze.ts';
import type { LinkNotices, LinkedElsewhere, SlackIdentity } from '../login/identity.ts';
import { expiryWarningMessage, linkedElsewhereMessage } from '../views/login/loginWords.ts';
import type { PresenceBoard, PresenceClosed } from '../attacks/presence.ts';
import type { Person } from '../store/sessions.ts';
import { presenceClosed, presenceQuestion, unwatchedUnhalted } from '../views/attacks/presence.ts';
import type { ExpiryWarning, SessionWarnings } from '../login/expiryWarnings.ts';
import type { StartIntent, StartNews, StartNotices } from '../attacks/startIntents.ts';
import {
  notStartedAfterRestartMessage,
  startedAfterRestartMessage,
  uncheckedAfterRestartMessage,
  unconfirmedAfterRestartMessage,
} from '../views/attacks/startRecovery.ts';
import type { WatchBoard } from '../attacks/watchCards.ts';
import type { Watch } from '../attacks/watches.ts';
import type { Attack } from '../client/index.ts';
import { attackCardMessage } from '../views/attacks/attackCard.ts';
import { platformTargetWords } from '../views/attacks/target.ts';
import { watchPausedMessage } from '../views/attacks/watch.ts';

/** Requests for a second person, in the attack's channel. */
export class SlackApprovalBoard implements ApprovalBoard {
  readonly #messenger: Pick<Messenger, 'post' | 'update'>;
  readonly #command: string;

  /** `command` is the slash command, for what a failed start says to run. */
  constructor(messenger: Pick<Messenger, 'post' | 'update'>, options: { command: string }) {
    this.#messenger = messenger;
    this.#command = options.command;
  }

  post(request: ApprovalRequest): Promise<MessageRef> {
    return this.#messenger.post(request.pending.channel, approvalRequestMessage(request));
  }

  close(at: MessageRef, closing: ApprovalClosing): void {
    this.#messenger.update(at.channel, at.ts, approvalClosedMessage(closing, this.#command), 'urgent');
  }
}

/** A freeze's notices, in the channel where it was declared. */
export class SlackFreezeNotices implements FreezeNotices {
  readonly #messenger: Pick<Messenger, 'post'>;
  readonly #command: string;

  /** `command` is the slash command, for the way out each notice names. */
  constructor(messenger: Pick<Messenger, 'post'>, options: { command: string }) {
    this.#messenger = messenger;
    this.#command = options.command;
  }

  async tell(freeze: Freeze & { channel: string }, notice: FreezeNotice): Promise<void> {
    await this.#messenger.post(freeze.channel, { text: freezeNoticeText(freeze, notice, this.#command) });
  }
}

/** The owner of a login's e-mail is told by direct message that it was linked to someone else. */
export class SlackLinkNotices implements LinkNotices {
  readonly #messenger: Pick<Messenger, 'post'>;

  constructor(messenger: Pick<Messenger, 'post'>) {
    this.#messenger = messenger;
  }

  async tell(owner: SlackIdentity, linked: LinkedElsewhere): Promise<void> {
    await this.#messenger.post(owner.userId, linkedElsewhereMessage(linked));
  }
}

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

/** Warnings before a session ends, by direct message. */
export class SlackSessionWarnings implements SessionWarnings {
  readonly #messenger: Pick<Messenger, 'post'>;

  constructor(messenger: Pick<Messenger, 'post'>) {
    this.#messenger = messenger;
  }

  async warn(person: Person, warning: ExpiryWarning): Promise<void> {
    await this.#messenger.post(person.userId, expiryWarningMessage(warning));
  }
}

/**
 * How a start a restarted bot finished ended, by direct message to its starter: the reply they
 * were waiting for went with the old process.
 */
export class SlackStartNotices implements StartNotices {
  readonly #messenger: Pick<Messenger, 'post'>;
  readonly #command: string;

  constructor(messenger: Pick<Messenger, 'post'>, command: string) {
    this.#messenger = messenger;
    this.#command = command;
  }

  async tell(intent: StartIntent, news: StartNews): Promise<void> {
    const what = { type: intent.request.type, teamName: intent.teamName, channel: intent.channel };
    const message =
      news.kind === 'started'
        ? startedAfterRestartMessage(what, news.guid, news.carded, this.#command)
        : news.kind === 'not sent'
          ? notStartedAfterRestartMessage(what)
          : news.kind === 'unchecked'
            ? uncheckedAfterRestartMessage(what, this.#command)
            : unconfirmedAfterRestartMessage(what, news.candidates, this.#command);
    await this.#messenger.post(intent.actor.userId, message);
  }
}

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
