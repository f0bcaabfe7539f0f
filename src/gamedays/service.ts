import type { Config } from '../config.ts';
import type { Actor } from '../store/sessions.ts';
import type { SavedAttacks } from '../attacks/saved.ts';
import type { StartAsk, StartParts } from '../attacks/start.ts';
import type { RehearsedStart, StartOutcome, StartWay } from '../attacks/startPolicy.ts';
import type { Watches } from '../attacks/watches.ts';
import type { GuardrailService } from '../guardrails/service.ts';
import { mayRunAttacks, platformFor, requireLogin, requireTeam, RUN_PRIVILEGE } from '../attacks/access.ts';
import type { CardRecord } from '../attacks/cards.ts';
import { recordState } from '../attacks/events.ts';
import { haltAttack } from '../attacks/halt.ts';
import { isLive } from '../attacks/lifecycle.ts';
import { keys } from '../store/keys.ts';
import type { TeamEntry } from '../client/index.ts';
import type { GameDays } from './gamedays.ts';
import type { GameDayPlan, HypothesisAnswer, PlanOwner, StepRef } from './plan.ts';
import type { GameDay } from './gamedayReads.ts';
import { addStep, moveStep, removeStep, setAutomatic } from './planChanges.ts';
import { runnerOf } from './planStepState.ts';
import type { AfterParts } from '../parts.ts';
import { reportAtEnd, shareGameDayReport } from './report.ts';
import { runPlans } from './planChanges.ts';
import { cardOutcome, type GameDayAttack, type GameDayOutcomes, type GameDayRecord } from './gamedayRecord.ts';
import { runNext } from './planNext.ts';
import { answerStep, countDown, delayStep, skipStep, startStepNow, vetoStep } from './planSteps.ts';
import type { ReportSharing } from './report.ts';

/** What game days, their plans and their reports use. */
export interface GameDayParts
  extends Pick<
    StartParts,
    'gameDays' | 'store' | 'cards' | 'sessions' | 'platform' | 'events' | 'logger' | 'clock' | 'guards'
  > {
  config: Pick<Config, 'countdownSeconds'>;
  /** Where a game day's report is shared, or its failure said. */
  reports: ReportSharing;
  watches: Watches;
  savedAttacks: SavedAttacks;
  guardrails: GuardrailService;
  /** What a plan step starts at zero: the attacks' start policy, with the runner's session. */
  startStep(ask: StartAsk, way: StartWay): Promise<StartOutcome>;
  /** What a rehearsal's step meets at zero: the same policy, with nothing created. */
  rehearseStep(ask: StartAsk): Promise<RehearsedStart>;
}

// Who may act on a game day besides its plan (whose rule is planStepState.ts's `requireMayRunStep`),
// whichever way in (command, button, form, workflow step): read from the person's own session.

export type GameDayChange = 'end' | 'add guards' | 'remove guards';

/**
 * Any one of these privileges on the game day's team (on any of the person's teams, for a game
 * day kept before its team was) allows the change; its facilitator may also end it and remove guards.
 */
const allowedBy: Record<GameDayChange, { privileges: readonly string[]; facilitator: boolean }> = {
  end: { privileges: ['HALT_WRITE'], facilitator: true },
  'add guards': { privileges: [RUN_PRIVILEGE, 'HALT_WRITE'], facilitator: false },
  'remove guards': { privileges: [RUN_PRIVILEGE, 'HALT_WRITE'], facilitator: true },
};

/** Whether the person may make the change; when not, whether they are logged in (and their session just expired). */
export interface GameDayAccess {
  may: boolean;
  loggedIn: boolean;
  expired: boolean;
}

export async function gameDayAccess(
  deps: Pick<GameDayParts, 'sessions'>,
  actor: Actor,
  record: Pick<GameDayRecord, 'facilitator' | 'teamId'>,
  change: GameDayChange,
): Promise<GameDayAccess> {
  const rule = allowedBy[change];
  if (rule.facilitator && actor.userId === record.facilitator) return { may: true, loggedIn: true, expired: false };
  const { login, expired } = await deps.sessions.lookup(actor);
  const may = login?.session.teams.some(
    (t) =>
      (record.teamId === undefined || t.identifier === record.teamId) &&
      rule.privileges.some((p) => t.privileges.includes(p)),
  );
  return { may: may === true, loggedIn: login !== undefined, expired };
}

/** An attack of the game day that has not ended, as its card shows it. */
export interface UnfinishedAttack {
  attack: GameDayAttack;
  card: CardRecord;
  stage: string;
  lifecycle: string;
}

/** How long a report waits for the halts of Halt all and end to land before it is made anyway. */
export const reportWaitMs = 5 * 60_000;

/** The report of a game day ended by Halt all and end, made once its halts have landed. */
interface ReportDue {
  gameDayId: string;
  channel: string;
  ts: string;
  actor: Actor;
  since: string;
}

/** Game days, their plans and a plan's steps under way: who may act on them, and what changes. */
export class GameDayService {
  readonly #parts: GameDayParts;

  constructor(parts: GameDayParts) {
    this.#parts = parts;
    this.days = parts.gameDays;
  }

  /** The game days: running, ended, their plans and outcomes. */
  readonly days: GameDays;

  /** A step's game-day plan, for a person logged in. */
  async planOf(actor: Actor, ref: StepRef): Promise<GameDayPlan> {
    await requireLogin(this.#parts, actor);
    return this.#parts.gameDays.plans.get({ gameDayId: ref.gameDayId });
  }

  /**
   * Start now, Delay 5 min and Skip on a countdown: anyone logged in may delay or skip; Start now
   * is a start, by whoever may run the step.
   */
  async countdown(actor: Actor, ref: StepRef, what: 'start now' | 'delay' | 'skip') {
    await requireLogin(this.#parts, actor);
    if (what === 'start now') return startStepNow(this.#parts, ref, runnerOf(actor));
    return (what === 'delay' ? delayStep : skipStep)(this.#parts, ref, actor.userId);
  }

  async veto(actor: Actor, ref: StepRef, reason: string) {
    await requireLogin(this.#parts, actor);
    return vetoStep(this.#parts, ref, actor.userId, reason);
  }

  /** The hypothesis answer, by anyone logged in. */
  async answer(actor: Actor, ref: StepRef, answer: HypothesisAnswer, observation: string | undefined) {
    await requireLogin(this.#parts, actor);
    return answerStep(this.#parts, ref, actor.userId, answer, observation);
  }

  /**
   * The team a person would run a game day with, their selected one, and whether they may: only
   * someone who may run attacks there, as its guards act with their session.
   */
  async facilitatorTeam(actor: Actor): Promise<{ team: TeamEntry; may: boolean }> {
    const team = requireTeam(await requireLogin(this.#parts, actor));
    return { team, may: mayRunAttacks(team) };
  }

  /** Whether the person may make this change to the game day (end it, change its guards). */
  access(actor: Actor, record: Pick<GameDayRecord, 'facilitator' | 'teamId'>, change: GameDayChange) {
    return gameDayAccess(this.#parts, actor, record, change);
  }
  /** The game day's attacks that have not ended, read afresh, as the person's teams show them. */
  async unfinished(actor: Actor, record: GameDayRecord): Promise<UnfinishedAttack[]> {
    return unfinishedOf(record, await this.#latestCards(actor, record));
  }

  /**
   * Halts, with the person's session (they must be logged in), the game day's attacks that still
   * run: gives how many were halted, and those that could not be, with why.
   */
  async haltUnfinished(
    actor: Actor,
    record: GameDayRecord,
  ): Promise<{ halted: number; failed: (UnfinishedAttack & { error: unknown })[] }> {
    await requireLogin(this.#parts, actor);
    const unfinished = await this.unfinished(actor, record);
    const failed: (UnfinishedAttack & { error: unknown })[] = [];
    for (const item of unfinished) {
      try {
        const { guid, teamId } = item.attack;
        await haltAttack(this.#parts, actor, { guid, teamId, kind: item.card.kind });
      } catch (error) {
        this.#parts.logger.warn({ err: error, attack: item.attack.guid }, 'could not halt an attack of the game day');
        failed.push({ ...item, error });
      }
    }
    return { halted: unfinished.length, failed };
  }

  /**
   * Ends the channel's game day and posts its summary, whatever still runs (the summary follows it);
   * gives the game day and how many of its attacks still run, or undefined when none was running.
   * `afterHalts`: its attacks were just halted, so the report, which is never redrawn, is made once
   * the halts have landed (#makeDueReports) rather than while they still show halting.
   */
  async end(
    actor: Actor,
    channel: string,
    options: { afterHalts?: boolean } = {},
  ): Promise<{ record: GameDayRecord; running: number } | undefined> {
    const deps = this.#parts;
    // Kept with the game day, so a report made later reads the teams watched while it ran.
    const record = await deps.gameDays.end(channel, { watchedTeams: await this.watchedTeams(channel) });
    if (!record) return undefined;
    const cards = await this.#latestCards(actor, record);
    const outcomes: GameDayOutcomes = Object.fromEntries([...cards].map(([guid, card]) => [guid, cardOutcome(card)]));
    await deps.gameDays.postSummary(record, outcomes);
    const running = unfinishedOf(record, cards).length;
    if (options.afterHalts && running) {
      const { id: gameDayId, channel: at, ts } = record;
      const due: ReportDue = { gameDayId, channel: at, ts, actor, since: new Date(deps.clock.now()).toISOString() };
      await deps.store.set(keys.gameDayReportDue.key(record.id), due, keys.gameDayReportDue.ttlMs);
    }
    // After the summary, and never failing the end: a report that cannot be made says so in the channel.
    else await reportAtEnd(deps, actor, record, { watchedTeams: record.watchedTeams });
    return { record, running };
  }

  /** Teams the channel watches, whose attacks belong in the report wherever they started. */
  async watchedTeams(channel: string): Promise<string[]> {
    return (await this.#parts.watches.all()).filter((w) => w.channel === channel).map((w) => w.teamId);
  }

  /** Where a plan is made: the channel's running game day's, else the one drafted for its next. */
  async planPlace(channel: string): Promise<{ owner: PlanOwner; day?: GameDay }> {
    const day = await this.days.running(channel);
    return day ? { owner: { gameDayId: day.id }, day } : { owner: { channel } };
  }
  /** A plan's changes, by whoever may run the step they touch. */
  addStep = (...a: AfterParts<typeof addStep>) => addStep(this.#parts, ...a);
  moveStep = (...a: AfterParts<typeof moveStep>) => moveStep(this.#parts, ...a);
  removeStep = (...a: AfterParts<typeof removeStep>) => removeStep(this.#parts, ...a);
  setAutomatic = (...a: AfterParts<typeof setAutomatic>) => setAutomatic(this.#parts, ...a);
  /** Run next step, whichever way in: the next step counts down, or why not. */
  runNext = (...a: AfterParts<typeof runNext>) => runNext(this.#parts, ...a);
  /** A step's countdown, as Run next step's (kept for the benchmark's plans). */
  countDown = (...a: AfterParts<typeof countDown>) => countDown(this.#parts, ...a);
  /** The game day's report, shared again. */
  shareReport = (...a: AfterParts<typeof shareGameDayReport>) => shareGameDayReport(this.#parts, ...a);

  /**
   * The background job: starts the steps whose countdown is over, and the automatic mode's next;
   * makes the reports that waited for their halts to land.
   */
  async runPlans(): Promise<void> {
    await runPlans(this.#parts);
    await this.#makeDueReports();
  }

  /**
   * The reports of game days ended by Halt all and end: each is made once none of its attacks'
   * cards shows it live any more, or five minutes on, whatever they show then.
   */
  async #makeDueReports(): Promise<void> {
    const deps = this.#parts;
    for await (const [, due] of deps.store.entries<ReportDue>(keys.gameDayReportDue.prefix)) {
      const key = keys.gameDayReportDue.key(due.gameDayId);
      const record = await deps.gameDays.byCard(due.channel, due.ts);
      if (!record) {
        await deps.store.delete(key);
        continue;
      }
      const cards = await deps.cards.getMany(record.attacks.map((a) => a.guid));
      const landed = cards.every((card) => !card || !isLive(card));
      if (!landed && Date.parse(due.since) + reportWaitMs > deps.clock.now()) continue;
      await deps.store.delete(key);
      await reportAtEnd(deps, due.actor, record, { watchedTeams: record.watchedTeams });
    }
  }

  /**
   * The card of each attack of the game day; those still live are read once more with the
   * person's session, so neither the warning nor the summary waits for the next poll.
   */
  async #latestCards(actor: Actor, record: GameDayRecord): Promise<Map<string, CardRecord | undefined>> {
    const deps = this.#parts;
    const login = await deps.sessions.get(actor);
    const cards = new Map<string, CardRecord | undefined>();
    for (const attack of record.attacks) {
      let card = await deps.cards.get(attack.guid);
      const team = login?.session.teams.find((t) => t.identifier === attack.teamId);
      if (card && isLive(card) && login && team) {
        const state = await platformFor(deps, login, team)
          .attacks.get(attack.guid)
          .catch(() => undefined);
        if (state) card = (await recordState(deps.cards, deps.events, attack.guid, state)) ?? card;
      }
      cards.set(attack.guid, card);
    }
    return cards;
  }
}

function unfinishedOf(record: GameDayRecord, cards: Map<string, CardRecord | undefined>): UnfinishedAttack[] {
  return record.attacks.flatMap((attack) => {
    const card = cards.get(attack.guid);
    return card && isLive(card) ? [{ attack, card, stage: card.stage, lifecycle: card.lifecycle }] : [];
  });
}
