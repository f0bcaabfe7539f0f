import { audit, type AuditEvent } from '../audit.ts';
import { type CardRecord, type CardStore, cardMessages } from '../attacks/cards.ts';
import { toState, withState } from '../attacks/cardState.ts';
import type { AttackEvent, Recorder, TripAttack } from '../attacks/events.ts';
import { isLive } from '../attacks/lifecycle.ts';
import type { GameDays } from '../gamedays/gamedays.ts';
import type { WorkflowSteps } from '../guardrails/approvals.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { attackCardMessage } from '../views/attacks/attackCard.ts';
import { errorInBrief, outcomeUnknown } from '../views/errorReply.ts';
import {
  frozenHaltText,
  guardHaltLine,
  haltStuckMessage,
  haltUnreadableMessage,
  haltVerifiedLine,
  personHaltLine,
  presenceHaltLine,
} from '../views/attacks/haltNotices.ts';
import { ruleText } from '../views/guardrails/approval.ts';
import { noteLine } from '../views/attacks/note.ts';
import { describeTarget } from '../views/attacks/target.ts';
import { ticketFiledText } from '../views/tickets/ticketReplies.ts';
import { askToHalt } from './askToHalt.ts';
import type { Messenger } from './messenger.ts';
import { keys } from '../store/keys.ts';

export interface SlackRecorderOptions {
  cards: CardStore;
  messenger: Pick<Messenger, 'post' | 'update'>;
  gameDays: Pick<GameDays, 'record' | 'attackFinished'>;
  /** Workflow steps waiting for an attack's end. */
  workflowSteps: Pick<WorkflowSteps, 'attackFinished'>;
  store: Pick<KeyValueStore, 'claim'>;
  logger: Logger;
  metrics: Pick<Metrics, 'attackEvents'>;
  now: () => number;
  /** The platform's web UI, for the cards' links. */
  appUrl: string | undefined;
  /** The slash command, for what a guard's owner is told to run. */
  command: string;
}

/**
 * What happened to attacks, shown: the card (and its copies in watched channels), the line in
 * its thread, the entry in the game day's timeline, the audit line and the metric. The domain
 * says what happened through `record`; this is the one place that knows where it shows.
 */
export class SlackRecorder implements Recorder {
  readonly #o: SlackRecorderOptions;

  constructor(options: SlackRecorderOptions) {
    this.#o = options;
  }

  async record(event: AttackEvent): Promise<CardRecord | undefined> {
    // An ending is counted where a card first shows it (#publish), however it was learnt; a halt
    // being verified is counted when it is verified or found stuck, not at every read.
    if (
      event.kind !== 'changed' &&
      event.kind !== 'ended' &&
      !(event.kind === 'halt checked' && event.news === 'progress')
    )
      this.#o.metrics.attackEvents.inc({
        event:
          event.kind === 'halted' && event.result !== 'halted'
            ? `halt found ${event.result}`
            : event.kind === 'halt checked'
              ? `halt ${event.news}`
              : event.kind,
        cause:
          event.kind === 'halted' || event.kind === 'mass halted' || event.kind === 'halt checked' ? event.cause : '',
      });
    // A start whose card could not be posted is the start's to report; nothing else fails its cause.
    if (event.kind === 'started') return this.#started(event);
    try {
      return await this.#show(event);
    } catch (error) {
      this.#o.logger.warn({ err: error, event: event.kind }, 'could not show what happened to an attack');
      return undefined;
    }
  }

  /**
   * Queues the update of every message that shows a card (saved already); a halt or an ending
   * goes out before cards that only moved on a stage. A card whose last change `ended` its attack
   * follows it into its game day.
   */
  async #publish(card: CardRecord, ended: boolean): Promise<CardRecord> {
    const priority = isLive(card) && !card.haltedBy.length ? 'routine' : 'urgent';
    for (const { channel, ts } of cardMessages(card))
      this.#o.messenger.update(
        channel,
        ts,
        () => attackCardMessage(card, { appUrl: this.#o.appUrl, channel }),
        priority,
      );
    if (ended) {
      this.#o.metrics.attackEvents.inc({ event: 'ended', cause: '' });
      await this.#o.gameDays.attackFinished(card);
      await this.#o.workflowSteps.attackFinished(card);
    }
    return card;
  }

  /** Changes a card in one step (CardStore.update) and shows it when that changed anything. */
  async #change(guid: string, change: (card: CardRecord) => CardRecord | undefined): Promise<CardRecord | undefined> {
    const changed = await this.#o.cards.update(guid, change);
    if (!changed?.changed) return changed?.card;
    return this.#publish(changed.card, isLive(changed.before) && !isLive(changed.card));
  }

  /** The platform's latest state on a card, shown only when what it shows changed. */
  async #showState(card: CardRecord, state: Parameters<typeof withState>[1] | undefined): Promise<CardRecord> {
    if (!state) return card;
    return (await this.#change(card.guid, toState(state))) ?? card;
  }

  /** A line in the card's thread; `what` names it in the log when Slack does not take it. */
  async #thread(card: Pick<CardRecord, 'guid' | 'channel' | 'ts'>, text: string, what: string): Promise<void> {
    if (!card.ts) return;
    await this.#o.messenger.post(card.channel, { text }, { threadTs: card.ts }).catch((error: unknown) => {
      this.#o.logger.warn({ err: error, attack: card.guid }, `could not post the ${what} in the thread`);
    });
  }

  #at(): string {
    return new Date(this.#o.now()).toISOString();
  }

  async #started(event: Extract<AttackEvent, { kind: 'started' }>): Promise<CardRecord> {
    const { by, request } = event;
    const card: CardRecord = { ...event.card, targetWords: describeTarget(request.target, event.card.teamName) };
    audit(this.#o.logger, 'attack_started', by, {
      platformUser: event.platformUser,
      team: card.teamId,
      attack: card.guid,
      type: request.type,
      args: request.args,
      target: request.target,
    });
    const posted = await this.#o.messenger.post(card.channel, attackCardMessage(card, { appUrl: this.#o.appUrl }));
    const saved = await this.#o.cards.saveStarted({ ...card, channel: posted.channel, ts: posted.ts });
    await this.#o.gameDays.record(saved.channel, {
      kind: 'attack',
      attack: {
        guid: card.guid,
        type: card.type,
        args: card.args,
        targetWords: card.targetWords,
        startedBy: by.userId,
        teamId: card.teamId,
        teamName: card.teamName,
        ...(event.step ? { step: event.step } : {}),
      },
    });
    return saved;
  }

  async #show(event: Exclude<AttackEvent, { kind: 'started' }>): Promise<CardRecord | undefined> {
    const { cards, gameDays, logger } = this.#o;
    switch (event.kind) {
      case 'refused': {
        audit(logger, 'start_refused', event.by, { type: event.request.type, teamName: event.teamName });
        await gameDays.record(event.channel, {
          kind: 'refused',
          refused: {
            type: event.request.type,
            args: event.request.args,
            targetWords: describeTarget(event.request.target, event.teamName),
            startedBy: event.by.userId,
            teamName: event.teamName,
            reason: errorInBrief(event.error, { team: event.teamName }),
            unconfirmed: outcomeUnknown(event.error) || undefined,
            at: this.#at(),
          },
        });
        return undefined;
      }
      case 'halted': {
        if (event.result === 'halted')
          audit(logger, 'attack_halted', event.by, {
            platformUser: event.platformUser,
            team: event.teamId,
            attack: event.guid,
            kind: event.attackKind,
            reason: event.reason,
            by: event.cause,
            scope: event.scope,
            guard: event.guard?.key,
          });
        else
          logger.info(
            { attack: event.guid, stage: event.state?.stage, result: event.result, by: event.cause },
            'halt asked for an attack that is not running',
          );
        const card = await cards.get(event.guid);
        if (!card) return undefined;
        if (event.result !== 'halted') return this.#showState(card, event.state);
        if (event.cause === 'guard' && event.guard)
          await this.#thread(card, guardHaltLine(event.guard, event.by.userId), 'guard halt');
        if (event.cause === 'presence') {
          await this.#thread(card, presenceHaltLine(event.by.userId), 'presence halt');
          const unwatched = { askedOf: event.by.userId, at: this.#at() };
          return this.#change(event.guid, (latest) => withHalt({ ...latest, unwatched }, event.state));
        }
        if (event.cause !== 'person') return this.#showState(card, event.state);
        // Two quick clicks both find the card unmarked; the claim lets only one of them say so.
        const first =
          !card.haltedBy.some((h) => h.userId === event.by.userId) &&
          (await this.#o.store.claim(keys.haltNoted.key(card.guid, event.by.userId), keys.haltNoted.ttlMs));
        if (!first) return this.#showState(card, event.state);
        await this.#thread(card, personHaltLine(event.by.userId), 'halt');
        await gameDays.record(card.channel, {
          kind: 'halt',
          halt: { guid: card.guid, by: event.by.userId, at: this.#at(), scope: 'attack' },
        });
        // Changed as the card is now: the poll may have shown the attack's end while the thread line was posted.
        const halter = { userId: event.by.userId, at: this.#at() };
        return this.#change(event.guid, (c) => withHalt({ ...c, haltedBy: [...c.haltedBy, halter] }, event.state));
      }
      case 'halt checked':
        return this.#haltChecked(event);
      case 'mass halted': {
        const audited: AuditEvent = event.scope === 'all' ? 'halt_all' : 'halt_everything';
        audit(logger, audited, event.by, {
          platformUser: event.platformUser,
          by: event.cause,
          ...(event.scope === 'all' ? { attacks: event.halted } : {}),
        });
        if (event.channel && event.cause === 'person')
          await gameDays.record(event.channel, {
            kind: 'halt',
            halt: { by: event.by.userId, at: this.#at(), scope: event.scope },
          });
        return undefined;
      }
      case 'changed':
      case 'ended':
        return this.#publish(event.card, event.kind === 'ended');
      case 'note': {
        audit(logger, 'note_added', event.by, {
          platformUser: event.platformUser,
          team: event.teamId,
          attack: event.guid,
        });
        const card = await cards.get(event.guid);
        if (!card) return undefined;
        const shown = await this.#showState(card, event.state);
        await this.#thread(card, noteLine(event.by.userId, event.text), 'note');
        await gameDays.record(card.channel, {
          kind: 'note',
          note: { guid: event.guid, by: event.by.userId, text: event.text, at: this.#at() },
        });
        return shown;
      }
      case 'ticket': {
        audit(logger, 'ticket_filed', event.by, {
          platformUser: event.platformUser,
          team: event.teamId,
          attack: event.attack,
          gameDay: event.gameDay,
          ticket: event.ticket.key,
        });
        const card = event.card ? await cards.get(event.card) : undefined;
        let shown: CardRecord | undefined;
        if (card) {
          await this.#thread(card, ticketFiledText(event.ticket, event.by.userId), 'ticket');
          shown = await this.#change(card.guid, (latest) => ({
            ...latest,
            ticketCount: (latest.ticketCount ?? 0) + 1,
          }));
        }
        if (event.gameDayChannel)
          await gameDays.record(event.gameDayChannel, {
            kind: 'ticket',
            ticket: {
              guid: event.attack,
              key: event.ticket.key,
              url: event.ticket.url,
              by: event.by.userId,
              at: this.#at(),
            },
          });
        return shown;
      }
      case 'guard fired':
        await this.#guardFired(event);
        return undefined;
      case 'plan step':
        logger.info(
          { channel: event.channel, step: event.step.stepId, what: event.step.what, by: event.step.by },
          'game-day plan step',
        );
        await gameDays.record(event.channel, { kind: 'step', step: event.step });
        return undefined;
      case 'frozen':
        audit(logger, 'freeze', event.by, {
          platformUser: event.platformUser,
          team: event.teamId,
          scope: event.scope,
          reason: event.reason,
        });
        return undefined;
      case 'freeze swept':
        if (event.channel && event.halted.length)
          await this.#o.messenger.post(event.channel, { text: frozenHaltText(event.teamName, event.halted) });
        return undefined;
      case 'approval': {
        const audited: AuditEvent =
          event.decision === 'requested'
            ? 'approval_requested'
            : event.decision === 'approved'
              ? 'attack_approved'
              : 'approval_rejected';
        audit(logger, audited, event.by, {
          ...(event.platformUser ? { platformUser: event.platformUser } : {}),
          team: event.teamId,
          ...(event.attack ? { attack: event.attack } : {}),
          ...(event.requestedBy ? { requestedBy: event.requestedBy } : {}),
          ...event.details,
          ...(event.rule ? { rule: ruleText(event.rule) } : {}),
        });
        return undefined;
      }
    }
  }

  /**
   * What a halted attack's executions showed: on its card; a target still running a minute after
   * the halt also in its thread and to the person who halted it, each with Halt again; the halt
   * verified in the end said in the thread where the stuck target was.
   */
  async #haltChecked(event: Extract<AttackEvent, { kind: 'halt checked' }>): Promise<CardRecord | undefined> {
    const { progress, news } = event;
    const card = await this.#o.cards.get(event.guid);
    const ref = { guid: event.guid, teamId: event.teamId ?? card?.teamId ?? '', kind: event.attackKind };
    if (!progress) {
      this.#o.logger.warn({ attack: event.guid }, 'no session can read the executions of a halted attack');
      await this.#o.messenger
        .post(event.by.userId, haltUnreadableMessage(ref, { type: card?.type, channel: card?.channel }))
        .catch((error: unknown) =>
          this.#o.logger.warn(
            { err: error, attack: event.guid },
            'could not tell the halter that a halt is unverified',
          ),
        );
      return card;
    }
    const log = { attack: event.guid, stopped: progress.stopped, total: progress.total, running: progress.running };
    if (news === 'verified') this.#o.logger.info(log, 'halt verified: every target has stopped');
    if (news === 'stuck') this.#o.logger.warn(log, 'a target still runs a minute after its halt');
    if (news === 'stuck') {
      if (card) {
        await this.#o.messenger
          .post(card.channel, haltStuckMessage(ref, progress), { threadTs: card.ts })
          .catch((error: unknown) =>
            this.#o.logger.warn({ err: error, attack: event.guid }, 'could not post the unverified halt in the thread'),
          );
      }
      await this.#o.messenger
        .post(
          event.by.userId,
          haltStuckMessage(ref, progress, { type: card?.type, channel: card?.channel, cause: event.cause }),
        )
        .catch((error: unknown) =>
          this.#o.logger.warn({ err: error, attack: event.guid }, 'could not tell the halter that a target runs on'),
        );
    }
    if (!card) return undefined;
    if (news === 'verified' && card.haltCheck?.stuck)
      await this.#thread(card, haltVerifiedLine(progress), 'verified halt');
    const shown = (c: CardRecord['haltCheck']) => JSON.stringify(c ?? null);
    return this.#change(card.guid, (latest) =>
      shown(latest.haltCheck) === shown(progress) ? undefined : { ...latest, haltCheck: progress },
    );
  }

  /**
   * A fired guard: people are asked to halt what its owners' sessions could not (in each
   * attack's channel, and the owner directly), and each game day it touched records the trip:
   * the channels of the attacks acted on, and, when the guard has just turned unhealthy, the
   * game days it guards with nothing running.
   */
  async #guardFired(event: Extract<AttackEvent, { kind: 'guard fired' }>): Promise<void> {
    const { guard, halted, notHalted } = event;
    if (notHalted.length) await askToHalt(this.#o, guard, notHalted);
    const channels = new Set([...halted, ...notHalted].map((c) => c.channel));
    if (!event.already) for (const channel of event.gameDays) channels.add(channel);
    const inOrder = (attacks: TripAttack[]) => [...attacks].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const named = (attacks: TripAttack[], channel: string) =>
      inOrder(attacks.filter((c) => c.channel === channel)).map((c) => ({ guid: c.guid, type: c.type }));
    for (const channel of channels) {
      await this.#o.gameDays.record(channel, {
        kind: 'guard',
        trip: {
          key: guard.key,
          guard: guard.name,
          state: guard.state,
          at: guard.at,
          owner: guard.owner.userId,
          halted: named(halted, channel),
          notHalted: named(notHalted, channel),
        },
      });
    }
  }
}

/** A card marked by a halt, with the halting stage the halt's answer showed (rather than at the next poll). */
function withHalt(card: CardRecord, state: Parameters<typeof withState>[1] | undefined): CardRecord {
  return state ? withState(card, state).card : card;
}
