import type { GameDayParts } from './service.ts';
import type { CardRecord } from '../attacks/cards.ts';
import { isLive } from '../attacks/lifecycle.ts';
import { recordState } from '../attacks/events.ts';
import { haltAttack } from '../attacks/halt.ts';
import { platformFor } from '../attacks/access.ts';
import type { Actor } from '../store/sessions.ts';
import { cardOutcome, type GameDayAttack, type GameDayOutcomes, type GameDayRecord } from './gamedayRecord.ts';
import { reportAtEnd } from './report.ts';
import { keys } from '../store/keys.ts';

/**
 * Ending a game day: what of it still runs, halting that, and the end itself with its summary and
 * report. Who may end it is the service's rule (gameDayAccess), asked by every way in first.
 */

/** An attack of the game day that has not ended, as its card shows it. */
export interface UnfinishedAttack {
  attack: GameDayAttack;
  card: CardRecord;
  stage: string;
  lifecycle: string;
}

/**
 * The card of each attack of the game day; those still live are read once more with the
 * person's session, so neither the warning nor the summary waits for the next poll.
 */
async function latestCards(
  deps: GameDayParts,
  actor: Actor,
  record: GameDayRecord,
): Promise<Map<string, CardRecord | undefined>> {
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

function unfinishedOf(record: GameDayRecord, cards: Map<string, CardRecord | undefined>): UnfinishedAttack[] {
  return record.attacks.flatMap((attack) => {
    const card = cards.get(attack.guid);
    return card && isLive(card) ? [{ attack, card, stage: card.stage, lifecycle: card.lifecycle }] : [];
  });
}

/** The game day's attacks that have not ended, read afresh. */
export async function unfinishedAttacks(
  deps: GameDayParts,
  actor: Actor,
  record: GameDayRecord,
): Promise<UnfinishedAttack[]> {
  return unfinishedOf(record, await latestCards(deps, actor, record));
}

/** Teams the channel watches, whose attacks belong in the report wherever they started. */
export async function watchedTeamsOf(deps: GameDayParts, channel: string): Promise<string[]> {
  return (await deps.watches.all()).filter((w) => w.channel === channel).map((w) => w.teamId);
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

/**
 * Ends the channel's game day and posts its summary, whatever still runs (the summary follows it);
 * gives the game day and how many of its attacks still run, or undefined when none was running.
 * `afterHalts`: its attacks were just halted, so the report, which is never redrawn, is made once
 * the halts have landed (makeDueReports) rather than while they still show halting.
 */
export async function endGameDay(
  deps: GameDayParts,
  actor: Actor,
  channel: string,
  options: { afterHalts?: boolean } = {},
): Promise<{ record: GameDayRecord; running: number } | undefined> {
  // Kept with the game day, so a report made later reads the teams watched while it ran.
  const record = await deps.gameDays.end(channel, { watchedTeams: await watchedTeamsOf(deps, channel) });
  if (!record) return undefined;
  const cards = await latestCards(deps, actor, record);
  const outcomes: GameDayOutcomes = Object.fromEntries([...cards].map(([guid, card]) => [guid, cardOutcome(card)]));
  await deps.gameDays.postSummary(record, outcomes);
  const running = unfinishedOf(record, cards).length;
  if (options.afterHalts && running) {
    const due: ReportDue = {
      gameDayId: record.id,
      channel: record.channel,
      ts: record.ts,
      actor,
      since: new Date(deps.clock.now()).toISOString(),
    };
    await deps.store.set(keys.gameDayReportDue.key(record.id), due, keys.gameDayReportDue.ttlMs);
  }
  // After the summary, and never failing the end: a report that cannot be made says so in the channel.
  else await reportAtEnd(deps, actor, record, { watchedTeams: record.watchedTeams });
  return { record, running };
}

/**
 * The reports of game days ended by Halt all and end: each is made once none of its attacks'
 * cards shows it live any more, or five minutes on, whatever they show then.
 */
export async function makeDueReports(deps: GameDayParts): Promise<void> {
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
 * Halts the game day's attacks that still run, with the person's session: gives how many were
 * halted, and those that could not be, with why.
 */
export async function haltUnfinished(
  deps: GameDayParts,
  actor: Actor,
  record: GameDayRecord,
): Promise<{ halted: number; failed: (UnfinishedAttack & { error: unknown })[] }> {
  const unfinished = await unfinishedAttacks(deps, actor, record);
  const failed: (UnfinishedAttack & { error: unknown })[] = [];
  for (const item of unfinished) {
    try {
      await haltAttack(deps, actor, { guid: item.attack.guid, teamId: item.attack.teamId, kind: item.card.kind });
    } catch (error) {
      deps.logger.warn({ err: error, attack: item.attack.guid }, 'could not halt an attack of the game day');
      failed.push({ ...item, error });
    }
  }
  return { halted: unfinished.length, failed };
}
