// What the features post through the messenger, outside an attack's card and a game day: each is
// the Slack side of an interface its feature declares, in the words of src/views. `command` is the
// slash command, for the way on that the words name.
import type { ApprovalBoard } from '../guardrails/approvals.ts';
import { approvalClosedMessage, approvalRequestMessage } from '../views/guardrails/approval.ts';
import type { Messenger } from './messenger.ts';
import type { FreezeNotices } from '../guardrails/sweep.ts';
import { freezeNoticeText } from '../views/guardrails/freeze.ts';
import type { LinkNotices } from '../login/service.ts';
import { expiryWarningMessage, linkedElsewhereMessage } from '../views/login/loginWords.ts';
import type { PresenceBoard } from '../attacks/presence.ts';
import { presenceClosed, presenceQuestion, unwatchedUnhalted } from '../views/attacks/presence.ts';
import type { SessionWarnings } from '../login/service.ts';
import type { StartNotices } from '../attacks/start.ts';
import {
  notStartedAfterRestartMessage,
  startedAfterRestartMessage,
  uncheckedAfterRestartMessage,
  unconfirmedAfterRestartMessage,
} from '../views/attacks/startRecovery.ts';
import type { WatchBoard } from '../attacks/watchCards.ts';
import { attackCardMessage } from '../views/attacks/attackCard.ts';
import { platformTargetWords } from '../views/attacks/attackPreview.ts';
import { watchPausedMessage } from '../views/attacks/watch.ts';

type Posts = Pick<Messenger, 'post'>;
type PostsAndUpdates = Pick<Messenger, 'post' | 'update'>;

/** Requests for a second person, in the attack's channel. */
export const slackApprovalBoard = (messenger: PostsAndUpdates, command: string): ApprovalBoard => ({
  post: (request) => messenger.post(request.pending.channel, approvalRequestMessage(request)),
  close: (at, closing) => messenger.update(at.channel, at.ts, approvalClosedMessage(closing, command), 'urgent'),
});

/** A freeze's notices, in the channel where it was declared. */
export const slackFreezeNotices = (messenger: Posts, command: string): FreezeNotices => ({
  async tell(freeze, notice) {
    await messenger.post(freeze.channel, { text: freezeNoticeText(freeze, notice, command) });
  },
});

/** The owner of a login's e-mail is told by direct message that it was linked to someone else. */
export const slackLinkNotices = (messenger: Posts): LinkNotices => ({
  async tell(owner, linked) {
    await messenger.post(owner.userId, linkedElsewhereMessage(linked));
  },
});

/** Warnings before a session ends, by direct message. */
export const slackSessionWarnings = (messenger: Posts): SessionWarnings => ({
  async warn(person, warning) {
    await messenger.post(person.userId, expiryWarningMessage(warning));
  },
});

/** "Still watching?" by direct message, and the question closed once answered or moot. */
export const slackPresenceBoard = (messenger: PostsAndUpdates): PresenceBoard => ({
  ask: (person, card, minutes) => messenger.post(person.userId, presenceQuestion(card, minutes)),
  async cannotHalt(card, askedOf) {
    await messenger.post(card.channel, unwatchedUnhalted(card, askedOf.userId), { threadTs: card.ts });
  },
  close: (message, card, closed, minutes) =>
    messenger.update(message.channel, message.ts, presenceClosed(card, closed, minutes), 'urgent'),
});

/**
 * How a start a restarted bot finished ended, by direct message to its starter: the reply they
 * were waiting for went with the old process.
 */
export const slackStartNotices = (messenger: Posts, command: string): StartNotices => ({
  async tell(intent, news) {
    const what = { type: intent.request.type, teamName: intent.teamName, channel: intent.channel };
    const message =
      news.kind === 'started'
        ? startedAfterRestartMessage(what, news.guid, news.carded, command)
        : news.kind === 'not sent'
          ? notStartedAfterRestartMessage(what)
          : news.kind === 'unchecked'
            ? uncheckedAfterRestartMessage(what, command)
            : unconfirmedAfterRestartMessage(what, news.candidates, command);
    await messenger.post(intent.actor.userId, message);
  },
});

/**
 * Watched channels: the cards of attacks found in their teams, and the notice that a watch
 * paused. `appUrl` is the platform's web UI, for the cards' links.
 */
export const slackWatchBoard = (messenger: Posts, appUrl: string | undefined, command: string): WatchBoard => ({
  async postCard(channel, card, attack) {
    const shown = 'targetWords' in card ? card : { ...card, targetWords: platformTargetWords(attack, card.teamName) };
    const message = await messenger.post(channel, attackCardMessage(shown, { appUrl, channel }));
    return { message, card: shown };
  },
  async tellPaused(watch) {
    await messenger.post(watch.channel, watchPausedMessage(watch, command));
  },
});
