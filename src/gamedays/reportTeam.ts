import { type Attack, NoIntegrationError, type ScopedPlatform, take } from '../client/index.ts';
import type { GameDayParts } from './service.ts';
import { cardOutcome, type GameDayAttack, type GameDayRecord } from './gamedayRecord.ts';
import type { ReportAttack, ReportProblem, ReportTeam } from './report.ts';

// One team's section of a game day's report: its attacks in the game day's window, each with its
// executions and tickets, read with the platform session of whoever makes the report.

/** Attacks read per team from the game day's window; a report of more would be read by nobody. */
const attacksPerTeam = 500;
/** Attacks whose executions and tickets are read at the same time. */
const concurrentReads = 4;

/** Runs `work` on every item, at most `limit` at a time, keeping the order of the items. */
async function inTurn<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** What the report knows of an attack before its executions and tickets are read. */
function attackEntry(
  attack: Attack | undefined,
  chat: GameDayAttack | undefined,
  haltedBy: string[],
  fallback: { stage: string; lifecycle: string },
): Omit<ReportAttack, 'executions' | 'tickets'> {
  return {
    guid: attack?.guid ?? chat!.guid,
    type: attack?.infra_command?.type ?? chat?.type ?? 'unknown',
    args: attack?.args ?? chat?.args ?? [],
    target: chat ? { words: chat.targetWords } : attack ? { platform: attack } : undefined,
    stage: attack?.stage ?? fallback.stage,
    lifecycle: attack?.stage_lifecycle ?? fallback.lifecycle,
    createdAt: attack?.created_at,
    startTime: attack?.start_time,
    endTime: attack?.end_time ?? undefined,
    createdBy: attack?.create_user,
    createSource: attack?.create_source,
    chat,
    haltedBy,
    platformNotes: Object.values(attack?.annotations ?? {}),
  };
}

/** Reads one team: its attacks in the window, then each attack's executions and tickets. */
export async function readTeam(
  deps: Pick<GameDayParts, 'cards' | 'logger'>,
  record: GameDayRecord,
  api: ScopedPlatform | undefined,
  team: { id: string; name: string; watched: boolean },
  window: { start: string; end: string },
): Promise<{ team: ReportTeam; failure?: unknown }> {
  const subject = { team: team.name };
  const chatAttacks = record.attacks.filter((a) => a.teamId === team.id);
  let found: Attack[] = [];
  let failure: unknown;
  if (api) {
    try {
      found = await take(
        api.attacks.iterateRange({ startTime: window.start, endTime: window.end, pageSize: 100 }),
        attacksPerTeam + 1,
      );
    } catch (error) {
      failure = error;
      deps.logger.warn({ err: error, team: team.id }, "could not read the attacks of a game day's window");
    }
  }
  const more = found.length > attacksPerTeam;
  found = found.slice(0, attacksPerTeam);
  // Oldest first, as the game day went; an attack started in the channel is always in, even if
  // the platform's clock put it just outside the window.
  const byGuid = new Map(found.map((attack) => [attack.guid, attack]));
  const guids = [...new Set([...found.map((a) => a.guid).reverse(), ...chatAttacks.map((a) => a.guid)])];
  const halts = record.halts.filter((h) => h.scope === 'attack' && h.guid);
  let noTracker = false;

  const attacks = await inTurn(guids, concurrentReads, async (guid): Promise<ReportAttack> => {
    const chat = chatAttacks.find((a) => a.guid === guid);
    const card = await deps.cards.get(guid);
    const outcome = cardOutcome(card);
    const haltedBy = [...new Set([...outcome.haltedBy, ...halts.filter((h) => h.guid === guid).map((h) => h.by)])];
    const entry = attackEntry(byGuid.get(guid), chat, haltedBy, outcome);
    if (!api)
      return {
        ...entry,
        executions: [],
        tickets: [],
        executionsProblem: { kind: 'no session' },
        ticketsProblem: { kind: 'no session' },
      };
    const [executions, tickets] = await Promise.all([
      api.attacks.executions(guid).then(
        (items) => ({ items }),
        (error: unknown) => ({
          items: [],
          problem: { kind: 'failed', error, ...subject, subject: `attack ${guid}` } satisfies ReportProblem,
        }),
      ),
      noTracker
        ? { items: [] }
        : api.tracker.issuesForEntity(guid, 'ATTACK').then(
            (items) => ({ items }),
            (error: unknown) => {
              if (error instanceof NoIntegrationError) {
                noTracker = true;
                return { items: [] };
              }
              return { items: [], problem: { kind: 'failed', error, ...subject } satisfies ReportProblem };
            },
          ),
    ]);
    return {
      ...entry,
      executions: executions.items,
      executionsProblem: 'problem' in executions ? executions.problem : undefined,
      tickets: tickets.items,
      ticketsProblem: 'problem' in tickets ? tickets.problem : undefined,
    };
  });
  const problem: ReportProblem | undefined = !api
    ? { kind: 'no session' }
    : failure
      ? { kind: 'failed', error: failure, ...subject }
      : undefined;
  return { team: { id: team.id, name: team.name, attacks, problem, more, noTracker, watched: team.watched }, failure };
}
