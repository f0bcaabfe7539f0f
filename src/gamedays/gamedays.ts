import { randomUUID } from 'node:crypto';
import type { CardRecord } from '../attacks/cards.ts';
import { isLive } from '../attacks/lifecycle.ts';
import type { GameDayEvent, GameDayOutcomes, GameDayRecord, GameDayRef } from './gamedayRecord.ts';
import { keys } from '../store/keys.ts';
import { Plans } from './plan.ts';
import { emptyEvents, type GameDay, type GameDayBase, shownPlan, startedUnder } from './gamedayReads.ts';
import { type GameDayShowParts, GameDaySteps, guardsShown } from './gamedaySteps.ts';
import { guardKey } from '../guardrails/guards.ts';
import { iso, pauseAuto, stopCountdowns } from './planStepState.ts';

export interface GameDaysOptions extends Omit<GameDayShowParts, 'plans'> {
  /** The game days' plans; one over the same store by default. */
  plans?: Plans | undefined;
}

/**
 * One game day per channel: it starts, takes events (one key each, so that replicas adding events
 * at the same moment never overwrite each other), ends, and follows its plan's attacks.
 */
export class GameDays extends GameDaySteps {
  constructor(options: GameDaysOptions) {
    super({ ...options, plans: options.plans ?? new Plans(options.store) });
  }

  /**
   * Starts one. `running` when one runs in the channel already, `starting` when another start
   * for the channel is under way at this very moment.
   */
  async start(
    channel: string,
    title: string,
    facilitator: string,
    team: { id: string; name: string },
    options: { rehearsal?: boolean | undefined } = {},
  ): Promise<{ outcome: 'started' | 'running' | 'starting'; record?: GameDay }> {
    const current = await this.running(channel);
    if (current) return { outcome: 'running', record: current };
    const claim = keys.gameDayStart.key(channel);
    const holder = randomUUID();
    if (!(await this.store.claim(claim, keys.gameDayStart.ttlMs, holder))) return { outcome: 'starting' };
    try {
      const again = await this.running(channel);
      if (again) return { outcome: 'running', record: again };
      const base: GameDayBase = {
        id: randomUUID(),
        channel,
        ts: '',
        title,
        facilitator,
        teamId: team.id,
        teamName: team.name,
        startedAt: iso(this.now()),
        ...(options.rehearsal ? { rehearsal: true } : {}),
      };
      // A plan drafted in the channel is this game day's from the start, on its card too.
      await this.plans.adoptDraft(channel, base.id, { rehearsal: options.rehearsal === true });
      const plan = shownPlan(await this.plans.get({ gameDayId: base.id }));
      const posted = await this.board.postCard({ ...base, ...emptyEvents(), plan });
      const saved = { ...base, channel: posted.channel, ts: posted.ts };
      await this.store.set(keys.gameDay.key(channel), saved, keys.gameDay.ttlMs);
      return { outcome: 'started', record: { ...saved, ...emptyEvents(), plan } };
    } finally {
      await this.store.release(claim, holder);
    }
  }

  /**
   * Adds an event to the channel's running game day, if any: kept for the summary, told in the
   * card's thread, counted on the card. Never fails the action that caused it.
   */
  async record(channel: string, happened: GameDayEvent): Promise<void> {
    try {
      const base = await this.store.get<GameDayBase>(keys.gameDay.key(channel));
      const event = base && (await this.#kept(base, happened));
      if (!base || !event) return;
      await this.store.set(
        keys.gameDayEvent.key(base.id, iso(this.now()), randomUUID()),
        event,
        keys.gameDayEvent.ttlMs,
      );
      // Which game day an attack belongs to, for when it ends (maybe after the game day did).
      if (event.kind === 'attack')
        await this.store.set(
          keys.gameDayAttack.key(event.attack.guid),
          { channel: base.channel, ts: base.ts } satisfies GameDayRef,
          keys.gameDayAttack.ttlMs,
        );
      if (event.kind === 'attack' && event.attack.step?.gameDayId === base.id)
        await this.stepStarted(event.attack.step, event.attack.guid);
      // A guard of the game day fired: the automatic mode stops running steps by itself.
      if (event.kind === 'guard')
        await this.plans.change({ gameDayId: base.id }, (plan) =>
          pauseAuto(plan, 'guard', event.trip.guard, event.trip.at),
        );
      const record = await this.assemble(base);
      await this.board.tell(record, event);
      await this.showCard(record);
    } catch (error) {
      this.logger.warn({ err: error, channel }, 'could not add to the game day');
    }
  }

  /**
   * What the game day keeps of an event: a real one everything of its channel; a rehearsal only
   * its plan's and its own guards' trips (nothing of it runs, so a trip halted none of its
   * attacks), as attacks started in its channel are real and not part of it.
   */
  async #kept(day: GameDayBase, event: GameDayEvent): Promise<GameDayEvent | undefined> {
    if (!day.rehearsal || event.kind === 'step') return event;
    if (event.kind !== 'guard') return undefined;
    const own = (await this.guards?.forGameDay(day.id)) ?? [];
    if (!own.some((guard) => guardKey(guard.spec) === event.trip.key)) return undefined;
    return { ...event, trip: { ...event.trip, halted: [], notHalted: [] } };
  }

  /**
   * Redraws the card of the channel's running game day when its guards or their readings differ
   * from what it shows. Cheap when nothing changed: no Slack call. Never fails its caller.
   */
  async showGuards(channel: string): Promise<void> {
    try {
      const base = await this.store.get<GameDayBase>(keys.gameDay.key(channel));
      if (!base?.ts) return;
      const record = await this.assemble(base);
      const shown = await this.store.get<string>(keys.gameDayGuardsShown.key(base.id));
      if (shown !== guardsShown(record)) await this.showCard(record);
    } catch (error) {
      this.logger.warn({ err: error, channel }, 'could not show the guards on the game-day card');
    }
  }

  /** Draws a game day's card again as its record stands (one a stopped replica could not update). */
  redrawCard(record: GameDayRecord): void {
    this.board.updateCard(record);
  }

  /**
   * Ends the channel's game day: the card shows it ended; the record is kept for its summary. Its
   * guards become the own guards of its attacks that still run, so they keep covering them.
   */
  async end(channel: string, options: { watchedTeams?: string[] | undefined } = {}): Promise<GameDay | undefined> {
    const base = await this.store.get<GameDayBase>(keys.gameDay.key(channel));
    if (!base || !(await this.store.claim(keys.gameDayEnd.key(base.id), keys.gameDayEnd.ttlMs))) return undefined;
    const ended = {
      ...base,
      endedAt: iso(this.now()),
      ...(options.watchedTeams ? { watchedTeams: options.watchedTeams } : {}),
    };
    await this.store.set(keys.gameDayEnded.key(channel, base.ts), ended, keys.gameDayEnded.ttlMs);
    await this.#keepGuarding(base);
    await this.store.delete(keys.gameDay.key(channel));
    // A countdown still running never starts its step: the step is stopped, its card says so.
    const { result: stopped } = await this.plans.change({ gameDayId: base.id }, (plan) =>
      stopCountdowns(plan, ended.endedAt),
    );
    const record = await this.assemble(ended);
    this.board.updateCard(record);
    for (const step of stopped) this.board.updateCountdown(record, step);
    return record;
  }

  /** Queues the redraw of an ended game day's summary, with what its steps and attacks show now. */
  async redrawSummary(record: GameDay): Promise<void> {
    if (record.endedAt && record.summaryTs)
      this.board.updateSummary({ channel: record.channel, ts: record.summaryTs }, record, await this.outcomes(record));
  }

  /** Never keeps the game day from ending: a guard that could not be kept is said in the log. */
  async #keepGuarding(day: GameDayBase): Promise<void> {
    try {
      const guards = (await this.guards?.forGameDay(day.id)) ?? [];
      if (!guards.length) return;
      const live = await this.cards.getMany([...(await this.cards.liveByTeam()).values()].flat());
      for (const card of live)
        if (card && isLive(card) && startedUnder(day, card)) await this.guards!.addForAttack(card, guards);
    } catch (error) {
      this.logger.warn(
        { err: error, channel: day.channel },
        "could not keep a game day's guards on its running attacks; they are no longer guarded by them",
      );
    }
  }

  /**
   * Posts the summary of an ended game day and remembers it, so that attacks still running then
   * show their outcome in it once they end (attackFinished).
   */
  async postSummary(record: GameDay, outcomes: GameDayOutcomes): Promise<void> {
    const posted = await this.board.postSummary(record, outcomes);
    const key = keys.gameDayEnded.key(record.channel, record.ts);
    const base = await this.store.get<GameDayBase>(key);
    if (!base) return;
    await this.store.set(key, { ...base, summaryTs: posted.ts }, keys.gameDayEnded.ttlMs);
    // An attack that ended while the summary was being posted found no summary to update.
    const now = await this.outcomes(record);
    if (JSON.stringify(now) !== JSON.stringify(outcomes)) this.board.updateSummary(posted, record, now);
  }

  /**
   * An attack's card has just shown it finished. For an attack of a game day: a failure goes
   * into the timeline with its reason, and an ended game day's summary shows the outcome.
   * Never fails the poll or the action that learnt it.
   */
  async attackFinished(card: CardRecord): Promise<void> {
    try {
      if (isLive(card)) return;
      const ref = await this.store.get<GameDayRef>(keys.gameDayAttack.key(card.guid));
      const step = await this.plans.stepOfAttack(card.guid);
      if (step) await this.stepEnded(step, card);
      const record = ref && (await this.byCard(ref.channel, ref.ts));
      if (!record) return;
      const attack = record.attacks.find((a) => a.guid === card.guid);
      if (
        attack &&
        card.lifecycle === 'Error' &&
        (await this.store.claim(keys.gameDayFailed.key(card.guid), keys.gameDayFailed.ttlMs))
      ) {
        await this.board.tellFailure(record, attack, card.stage);
      }
      await this.redrawSummary(record);
    } catch (error) {
      this.logger.warn({ err: error, attack: card.guid }, 'could not show the end of an attack in its game day');
    }
  }
}
