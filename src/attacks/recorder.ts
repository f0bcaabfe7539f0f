import type { GameDays } from '../gamedays/gamedays.ts';
import type { WorkflowSteps } from '../guardrails/approvals.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../metrics.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import { auditEvent, countEvent } from '../audit.ts';
import type { AttackState, CardRecord, CardStore } from './cards.ts';
import { toState, withState } from './lifecycle.ts';
import type { AttackEvent, AttackProjection, Recorded, Recorder, TripAttack } from './events.ts';

export interface AttackRecorderOptions {
  cards: CardStore;
  gameDays: Pick<GameDays, 'record' | 'attackFinished'>;
  /** Workflow steps waiting for an attack's end. */
  workflowSteps: Pick<WorkflowSteps, 'attackFinished'>;
  store: Pick<KeyValueStore, 'claim'>;
  logger: Logger;
  metrics: Pick<Metrics, 'attackEvents'>;
  now: () => number;
  /** Where attacks show, handed each event once its changes are saved. */
  projection: AttackProjection;
}

/** What an event changed, and whether that change ended its attack. */
type Applied = Recorded & { ended: boolean };

const nothing: Applied = { card: undefined, before: undefined, changed: false, ended: false };
const unchanged = (card: CardRecord): Applied => ({ card, before: card, changed: false, ended: false });

/**
 * What happened to attacks, kept: the audit line and the metric, then the event's changes (the
 * card in one atomic CardStore.update, the game day's timeline), then the projection with the
 * card as saved; a card whose change ended its attack is followed last into its game day and the
 * workflow steps waiting on it. The one place that decides what an event changes.
 */
export class AttackRecorder implements Recorder {
  readonly #o: AttackRecorderOptions;

  constructor(options: AttackRecorderOptions) {
    this.#o = options;
  }

  async record(event: AttackEvent): Promise<CardRecord | undefined> {
    countEvent(this.#o.metrics, event);
    auditEvent(this.#o.logger, event, (rule) => this.#o.projection.ruleText(rule));
    // A start whose card could not be posted is the start's to report; nothing else fails its cause.
    if (event.kind === 'started') return this.#started(event);
    try {
      const applied = await this.#apply(event);
      await this.#o.projection.show(event, applied).catch((error: unknown) => {
        this.#o.logger.warn({ err: error, event: event.kind }, 'could not show what happened to an attack');
      });
      if (applied.ended && applied.card) await this.#finished(applied.card);
      return applied.card;
    } catch (error) {
      this.#o.logger.warn({ err: error, event: event.kind }, 'could not record what happened to an attack');
      return undefined;
    }
  }

  /** What waited on an attack's end follows it once, where its card first shows it. */
  async #finished(card: CardRecord): Promise<void> {
    this.#o.metrics.attackEvents.inc({ event: 'ended', cause: '' });
    await this.#o.gameDays.attackFinished(card);
    await this.#o.workflowSteps.attackFinished(card);
  }

  /** Changes a card in one step (CardStore.update); the card as read when it is gone. */
  async #change(card: CardRecord, change: (latest: CardRecord) => CardRecord | undefined): Promise<Applied> {
    return (await this.#o.cards.update(card.guid, change)) ?? unchanged(card);
  }

  /** The platform's latest state on a card, saved only when what it shows changed. */
  #toState(card: CardRecord, state: AttackState | undefined): Promise<Applied> {
    return state ? this.#change(card, toState(state)) : Promise.resolve(unchanged(card));
  }

  #at(): string {
    return new Date(this.#o.now()).toISOString();
  }

  /** The card is posted first (its message is part of what is saved), then saved, then put in the game day. */
  async #started(event: Extract<AttackEvent, { kind: 'started' }>): Promise<CardRecord> {
    const { by, request } = event;
    const targetWords = this.#o.projection.targetWords(request.target, event.card.teamName);
    const card: CardRecord = { ...event.card, targetWords };
    const posted = await this.#o.projection.postCard(card);
    const saved = await this.#o.cards.saveStarted({ ...card, channel: posted.channel, ts: posted.ts });
    await this.#o.gameDays.record(saved.channel, {
      kind: 'attack',
      attack: {
        guid: card.guid,
        type: card.type,
        args: card.args,
        targetWords,
        startedBy: by.userId,
        teamId: card.teamId,
        teamName: card.teamName,
        ...(event.step ? { step: event.step } : {}),
      },
    });
    return saved;
  }

  async #apply(event: Exclude<AttackEvent, { kind: 'started' }>): Promise<Applied> {
    const { cards, gameDays } = this.#o;
    switch (event.kind) {
      case 'refused': {
        const { reason, unconfirmed } = this.#o.projection.refusal(event.error, event.teamName);
        await gameDays.record(event.channel, {
          kind: 'refused',
          refused: {
            type: event.request.type,
            args: event.request.args,
            targetWords: this.#o.projection.targetWords(event.request.target, event.teamName),
            startedBy: event.by.userId,
            teamName: event.teamName,
            reason,
            unconfirmed: unconfirmed || undefined,
            at: this.#at(),
          },
        });
        return nothing;
      }
      case 'halted':
        return this.#halted(event);
      case 'halt checked': {
        const card = await cards.get(event.guid);
        const { progress } = event;
        // Said before it is saved, so the card keeps where: a halt verified later changes those messages.
        const warned = progress && event.news === 'stuck' ? await this.#o.projection.haltStuck(event, card) : [];
        if (!card || !progress) return card ? unchanged(card) : nothing;
        const same = (check: CardRecord['haltCheck']) => JSON.stringify(check ?? null) === JSON.stringify(progress);
        return this.#change(card, (latest) => {
          const haltWarnings = progress.verified
            ? undefined
            : warned.length
              ? [...(latest.haltWarnings ?? []), ...warned]
              : latest.haltWarnings;
          if (same(latest.haltCheck) && haltWarnings === latest.haltWarnings) return undefined;
          return { ...latest, haltCheck: progress, haltWarnings };
        });
      }
      case 'mass halted':
        if (event.channel && event.cause === 'person')
          await gameDays.record(event.channel, {
            kind: 'halt',
            halt: { by: event.by.userId, at: this.#at(), scope: event.scope },
          });
        return nothing;
      case 'changed':
      case 'ended':
        // Saved already (recordState); only shown, and an ending followed.
        return { card: event.card, before: event.card, changed: true, ended: event.kind === 'ended' };
      case 'note': {
        const card = await cards.get(event.guid);
        if (!card) return nothing;
        const applied = await this.#toState(card, event.state);
        await gameDays.record(card.channel, {
          kind: 'note',
          note: { guid: event.guid, by: event.by.userId, text: event.text, at: this.#at() },
        });
        return applied;
      }
      case 'ticket': {
        const card = event.card ? await cards.get(event.card) : undefined;
        const applied = card
          ? await this.#change(card, (latest) => ({ ...latest, ticketCount: (latest.ticketCount ?? 0) + 1 }))
          : nothing;
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
        return applied;
      }
      case 'guard fired':
        await this.#guardFired(event);
        return nothing;
      case 'plan step':
        await gameDays.record(event.channel, { kind: 'step', step: event.step });
        return nothing;
      case 'frozen':
      case 'freeze swept':
      case 'approval':
        return nothing;
    }
  }

  /**
   * A halt the platform answered, on its card: the state its answer showed; for a presence check
   * nobody answered, whom it asked; for a freeze, who froze and why among the halters; for a
   * person, their name among the halters and the halt in the game day's timeline, once however
   * often they click.
   */
  async #halted(event: Extract<AttackEvent, { kind: 'halted' }>): Promise<Applied> {
    const card = await this.#o.cards.get(event.guid);
    if (!card) return nothing;
    if (event.result !== 'halted' || event.cause === 'guard') return this.#toState(card, event.state);
    if (event.cause === 'presence') {
      const unwatched = { askedOf: event.by.userId, at: this.#at() };
      return this.#change(card, (latest) => withHalt({ ...latest, unwatched }, event.state));
    }
    if (event.cause === 'freeze') {
      // Who froze, with why, once: a freeze halts an attack once, and a sweep run again changes nothing.
      const halter = { userId: event.by.userId, at: this.#at(), reason: event.reason };
      const named = (latest: CardRecord) =>
        latest.haltedBy.some((h) => h.userId === halter.userId && h.reason === halter.reason);
      return this.#change(card, (latest) =>
        withHalt(named(latest) ? latest : { ...latest, haltedBy: [...latest.haltedBy, halter] }, event.state),
      );
    }
    // Two quick clicks both find the card unmarked; the claim lets only one of them mark it.
    const first =
      !card.haltedBy.some((h) => h.userId === event.by.userId) &&
      (await this.#o.store.claim(keys.haltNoted.key(card.guid, event.by.userId), keys.haltNoted.ttlMs));
    if (!first) return this.#toState(card, event.state);
    await this.#o.gameDays.record(card.channel, {
      kind: 'halt',
      halt: { guid: card.guid, by: event.by.userId, at: this.#at(), scope: 'attack' },
    });
    const halter = { userId: event.by.userId, at: this.#at() };
    return this.#change(card, (latest) => withHalt({ ...latest, haltedBy: [...latest.haltedBy, halter] }, event.state));
  }

  /**
   * A fired guard in each game day it touched: the channels of the attacks acted on, and, when
   * the guard has just turned unhealthy, the game days it guards with nothing running.
   */
  async #guardFired(event: Extract<AttackEvent, { kind: 'guard fired' }>): Promise<void> {
    const { guard, halted, notHalted } = event;
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
function withHalt(card: CardRecord, state: AttackState | undefined): CardRecord {
  return state ? withState(card, state).card : card;
}
