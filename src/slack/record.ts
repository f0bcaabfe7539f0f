import { type CardRecord, cardMessages, type HaltWarning, type MessageRef } from '../attacks/cards.ts';
import type { AttackEvent, AttackProjection, Recorded } from '../attacks/events.ts';
import { isLive } from '../attacks/lifecycle.ts';
import type { Logger } from '../logger.ts';
import { attackCardMessage } from '../views/attacks/attackCard.ts';
import {
  freezeHaltLine,
  frozenHaltText,
  guardHaltLine,
  haltStuckMessage,
  haltUnreadableMessage,
  haltVerifiedLateMessage,
  haltVerifiedLine,
  personHaltLine,
  presenceHaltLine,
} from '../views/attacks/halt.ts';
import { noteLine } from '../views/attacks/note.ts';
import { describeTarget } from '../views/attacks/attackPreview.ts';
import { errorInBrief, outcomeUnknown } from '../views/errorReply.ts';
import { ruleText } from '../views/guardrails/approval.ts';
import { ticketFiledText } from '../views/tickets/ticket.ts';
import { askToHalt } from './askToHalt.ts';
import type { Messenger } from './messenger.ts';
import type { Message } from '../views/message.ts';

export interface SlackAttackProjectionOptions {
  messenger: Pick<Messenger, 'post' | 'update'>;
  logger: Logger;
  /** The platform's web UI, for the cards' links. */
  appUrl: string | undefined;
  /** The slash command, for what a guard's owner is told to run. */
  command: string;
}

/**
 * What happened to attacks, shown in Slack: the card (and its copies in watched channels), the
 * line in its thread, the notices to people. It is handed each event by the attacks' recorder
 * (src/attacks/recorder.ts) once its changes are saved, with the card as saved, and changes
 * nothing of the attack's itself.
 */
export class SlackAttackProjection implements AttackProjection {
  readonly #o: SlackAttackProjectionOptions;

  constructor(options: SlackAttackProjectionOptions) {
    this.#o = options;
  }

  targetWords = describeTarget;
  ruleText = ruleText;

  refusal(error: unknown, teamName: string): { reason: string; unconfirmed: boolean } {
    return { reason: errorInBrief(error, { team: teamName }), unconfirmed: outcomeUnknown(error) };
  }

  postCard(card: CardRecord): Promise<MessageRef> {
    return this.#o.messenger.post(card.channel, attackCardMessage(card, { appUrl: this.#o.appUrl }));
  }

  async show(event: AttackEvent, { card, before, changed }: Recorded): Promise<void> {
    // A note's stage moves on before its line is posted; the other lines come before what they changed.
    if (card && changed && event.kind === 'note') this.#redraw(card);
    switch (event.kind) {
      case 'halted':
        if (card && event.result === 'halted') await this.#haltLine(event, card, before);
        break;
      case 'halt checked':
        await this.#haltChecked(event, card, before);
        break;
      case 'note':
        if (card) await this.#thread(card, noteLine(event.by.userId, event.text), 'note');
        break;
      case 'ticket':
        if (card) await this.#thread(card, ticketFiledText(event.ticket, event.by.userId), 'ticket');
        break;
      case 'guard fired':
        if (event.notHalted.length) await askToHalt(this.#o, event.guard, event.notHalted);
        break;
      case 'freeze swept':
        if (event.channel && event.halted.length)
          await this.#o.messenger.post(event.channel, { text: frozenHaltText(event.teamName, event.halted) });
        break;
    }
    if (card && changed && event.kind !== 'note') this.#redraw(card);
  }

  /**
   * Queues the update of every message that shows a card (saved already); a halt or an ending
   * goes out before cards that only moved on a stage.
   */
  #redraw(card: CardRecord): void {
    const priority = isLive(card) && !card.haltedBy.length ? 'routine' : 'urgent';
    for (const { channel, ts } of cardMessages(card))
      this.#o.messenger.update(
        channel,
        ts,
        () => attackCardMessage(card, { appUrl: this.#o.appUrl, channel }),
        priority,
      );
  }

  /** A line in the card's thread; `what` names it in the log when Slack does not take it. */
  async #thread(card: Pick<CardRecord, 'guid' | 'channel' | 'ts'>, text: string, what: string): Promise<void> {
    if (card.ts) await this.#tell(card.guid, card.channel, { text }, `post the ${what} in the thread`, card.ts);
  }

  /** Who or what halted the attack, in its thread: a person once, the first time the card names them. */
  async #haltLine(
    event: Extract<AttackEvent, { kind: 'halted' }>,
    card: CardRecord,
    before: CardRecord | undefined,
  ): Promise<void> {
    const { userId } = event.by;
    if (event.cause === 'guard' && event.guard)
      await this.#thread(card, guardHaltLine(event.guard, userId), 'guard halt');
    if (event.cause === 'presence') await this.#thread(card, presenceHaltLine(userId), 'presence halt');
    const frozeIt = (c: CardRecord | undefined) =>
      !!c?.haltedBy.some((h) => h.userId === userId && h.reason === event.reason);
    if (event.cause === 'freeze' && frozeIt(card) && !frozeIt(before))
      await this.#thread(card, freezeHaltLine(userId, event.reason), 'freeze halt');
    const names = (c: CardRecord | undefined) => !!c?.haltedBy.some((h) => h.userId === userId);
    if (event.cause === 'person' && names(card) && !names(before))
      await this.#thread(card, personHaltLine(userId), 'halt');
  }

  /** The attack as its halt's messages name it, for Halt again. */
  #ref(event: Extract<AttackEvent, { kind: 'halt checked' }>, card: CardRecord | undefined) {
    return { guid: event.guid, teamId: event.teamId ?? card?.teamId ?? '', kind: event.attackKind };
  }

  /** A message about a halt; undefined, and logged, when Slack did not take it. */
  #tell(guid: string, channel: string, message: Message, what: string, threadTs?: string) {
    return this.#o.messenger.post(channel, message, { threadTs }).catch((error: unknown) => {
      this.#o.logger.warn({ err: error, attack: guid }, `could not ${what}`);
      return undefined;
    });
  }

  /**
   * A target still running `HALT_SLO_SECONDS` after the halt: in the attack's thread and to the person who
   * halted it, each with Halt again; where they went is kept on the card.
   */
  async haltStuck(event: Extract<AttackEvent, { kind: 'halt checked' }>, card: CardRecord | undefined) {
    const { progress } = event;
    if (!progress) return [];
    const ref = this.#ref(event, card);
    const warned: HaltWarning[] = [];
    if (card?.ts) {
      const message = haltStuckMessage(ref, progress);
      const posted = await this.#tell(
        event.guid,
        card.channel,
        message,
        'post the unverified halt in the thread',
        card.ts,
      );
      if (posted) warned.push(posted);
    }
    const told = haltStuckMessage(ref, progress, { type: card?.type, channel: card?.channel, cause: event.cause });
    const dm = await this.#tell(event.guid, event.by.userId, told, 'tell the halter that a target runs on');
    if (dm) warned.push({ ...dm, halter: true });
    return warned;
  }

  /**
   * What a halted attack's executions showed: unreadable executions to the halter; a halt
   * verified in the end said in the thread where the stuck target was, and its warnings changed
   * to say so, without Halt again.
   */
  async #haltChecked(
    event: Extract<AttackEvent, { kind: 'halt checked' }>,
    card: CardRecord | undefined,
    before: CardRecord | undefined,
  ): Promise<void> {
    const { progress, news } = event;
    const ref = this.#ref(event, card);
    if (!progress) {
      const message = haltUnreadableMessage(ref, { type: card?.type, channel: card?.channel });
      await this.#tell(event.guid, event.by.userId, message, 'tell the halter that a halt is unverified');
      return;
    }
    if (!card || news !== 'verified' || !before?.haltCheck?.stuck) return;
    for (const { channel, ts, halter } of before.haltWarnings ?? []) {
      const named = halter ? { type: card.type, channel: card.channel } : undefined;
      this.#o.messenger.update(channel, ts, haltVerifiedLateMessage(ref, progress, named), 'urgent');
    }
    await this.#thread(card, haltVerifiedLine(progress), 'verified halt');
  }
}
