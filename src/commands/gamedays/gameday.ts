import type { Deps } from '../../deps.ts';
import { channelLinks, escapeMrkdwn } from '../../views/blocks.ts';
import {
  ambiguousGameDayIdText,
  gameDayAlreadyEndedText,
  gameDayEndedText,
  gameDayEndRefusedText,
  gameDayStartRefusedText,
  gameDayGuardsRemovedText,
  gameDayGuardsSetText,
  gameDayKeptText,
  gameDayRunningText,
  gameDayStartedText,
  gameDayStartingText,
  noGameDayText,
  noReportText,
  notHaltedLine,
} from '../../views/gamedays/gamedayWords.ts';
import { gameDayEndWarning, gameDayStatusMessage, type UnfinishedAttack } from '../../views/gamedays/gamedaySummary.ts';
import {
  cardOutcome,
  parseGameDayRef,
  type GameDayOutcomes,
  type GameDayRecord,
} from '../../gamedays/gamedayRecord.ts';
import { errorInBrief } from '../../views/errorReply.ts';
import type { CardRecord } from '../../attacks/cards.ts';
import { isLive } from '../../attacks/lifecycle.ts';
import { recordState } from '../../attacks/events.ts';
import { otherAttackChannels } from '../../attacks/channels.ts';
import { haltAttack } from '../../attacks/halt.ts';
import { type Action, message, replacement, type Reply } from '../reply.ts';
import { z } from 'zod';
import { subcommand } from '../command.ts';
import { actions, contract, flag } from '../contract.ts';
import { UserInputError } from '../../errors.ts';
import type { Actor, Login } from '../../store/sessions.ts';
import type { TeamEntry } from '../../client/index.ts';
import { mayRunAttacks, platformFor, requireLogin, requireTeam, teamName } from '../../attacks/access.ts';
import { reportAtEnd, shareGameDayReport } from '../../gamedays/report.ts';
import { reportAgainFailedText, reportSharedText } from '../../views/gamedays/reportWords.ts';
import { guardsFromFlag } from '../guardrails/guardFlags.ts';
import { addGameDayGuards, openGuardPicker, removeGameDayGuards, requireMayChangeGuards } from './guards.ts';
import { automatic, moveFromCommand, planFromCommand, runNext, stepFromCommand } from './plan.ts';

const usage =
  'gameday start <title> [--guard a:<monitor id>] [--guard b:<alert name>] | gameday guard [<guard>…] | gameday unguard <guard>… | gameday status | gameday end | gameday report [id] | gameday plan | gameday step <saved attack> <hypothesis> [--guard …] [--team T] | gameday step --attack "<attack>" <hypothesis> | gameday move <step> <position> | gameday next | gameday auto on|off';

const stepNumber = (what: string) =>
  z
    .string({ error: `Give the ${what}, a number from the plan.` })
    .regex(/^[1-9]\d{0,2}$/, {
      error: (issue) => `“${escapeMrkdwn(String(issue.input))}” is not a ${what}: give a number from the plan.`,
    })
    .transform(Number);

const guards = { guard: flag.values('a guard, such as `a:<monitor id>` or `b:<alert name>`') };

const gamedayArgs = actions(
  {
    command: 'gameday',
    usage,
    unknown: (word) => (word ? `“${escapeMrkdwn(word)}” is not a game-day action.` : 'Start, show or end a game day.'),
  },
  {
    start: contract({
      command: 'gameday start',
      usage,
      // A flag it does not take is refused, never kept in the title; a title with dashes goes in quotes.
      takes: 'a title and `--guard`; put a title that has dashes in quotes',
      rest: z
        .array(z.string())
        .transform((words) => words.join(' ').replace(/\s+/g, ' ').trim())
        .pipe(z.string().min(1, 'Give the game day a title.').max(150, 'Keep the title under 150 characters.')),
      flags: guards,
    }),
    guard: contract({ command: 'gameday guard', usage, rest: z.array(z.string()), flags: guards }),
    unguard: contract({
      command: 'gameday unguard',
      usage,
      rest: z.array(z.string()).min(1, 'Name the guard to remove, such as `a:1234567` or `b:CheckoutErrorRate`.'),
    }),
    status: contract({ command: 'gameday status', usage }),
    end: contract({ command: 'gameday end', usage }),
    report: contract({
      command: 'gameday report',
      usage,
      words: { id: z.string().optional() },
      rest: z.array(z.string()).max(0, 'Give at most one game-day id.'),
    }),
    plan: contract({ command: 'gameday plan', usage }),
    step: contract({
      command: 'gameday step',
      usage,
      takes: 'a saved attack and the hypothesis, or `--attack`, `--guard` and `--team`',
      rest: z.array(z.string()),
      flags: {
        ...guards,
        attack: flag.value('an attack in quotes, as after `attack`'),
        team: flag.value('a team name or id'),
      },
    }),
    move: contract({ command: 'gameday move', usage, words: { from: stepNumber('step'), to: stepNumber('position') } }),
    next: contract({ command: 'gameday next', usage }),
    auto: contract({
      command: 'gameday auto',
      usage,
      words: {
        on: z.enum(['on', 'off'], { error: 'Say `on` or `off`.' }),
      },
    }),
  },
);

/**
 * The card of each attack of the game day; those still live are read once more with the
 * person's session, so neither the warning nor the summary waits for the next poll.
 */
async function latestCards(
  deps: Deps,
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

const outcomesOf = (cards: Map<string, CardRecord | undefined>): GameDayOutcomes =>
  Object.fromEntries([...cards].map(([guid, card]) => [guid, cardOutcome(card)]));

/** The game day's attacks that have not ended, as their cards show them. */
function unfinishedOf(
  record: GameDayRecord,
  cards: Map<string, CardRecord | undefined>,
): (UnfinishedAttack & { card: CardRecord })[] {
  return record.attacks.flatMap((attack) => {
    const card = cards.get(attack.guid);
    return card && isLive(card) ? [{ attack, card, stage: card.stage, lifecycle: card.lifecycle }] : [];
  });
}

/** Ends the game day and posts its summary, whatever still runs (the summary follows it). */
export async function endNow(deps: Deps, actor: Actor, channel: string, halted = 0): Promise<string | undefined> {
  // Kept with the game day, so a report made later reads the teams watched while it ran.
  const record = await deps.gameDays.end(channel, { watchedTeams: await watchedTeamsOf(deps, channel) });
  if (!record) return undefined;
  const cards = await latestCards(deps, actor, record);
  await deps.gameDays.postSummary(record, outcomesOf(cards));
  // After the summary, and never failing the end: a report that cannot be made says so in the channel.
  await reportAtEnd(deps, actor, record, { watchedTeams: record.watchedTeams });
  const running = unfinishedOf(record, cards).length;
  return gameDayEndedText(record.title, halted, running);
}

/** Teams the channel watches, whose attacks belong in the report wherever they started. */
async function watchedTeamsOf(deps: Deps, channel: string): Promise<string[]> {
  return (await deps.watches.all()).filter((w) => w.channel === channel).map((w) => w.teamId);
}

/** `gameday report [id]`: the full report of an ended game day of the channel, shared there again. */
async function reportAgain(deps: Deps, actor: Actor, channel: string, id: string | undefined): Promise<Reply> {
  const { record, ambiguous } = await deps.gameDays.ended(channel, id);
  const cmd = deps.config.slack.command;
  if (ambiguous) return message(ambiguousGameDayIdText(id!));
  if (!record) {
    const running = await deps.gameDays.running(channel);
    return message(noReportText(id, running?.title, cmd));
  }
  await requireLogin(deps, actor);
  try {
    // Game days ended before the watched teams were kept with them use the channel's watches now.
    const report = await shareGameDayReport(deps, actor, record, {
      watchedTeams: record.watchedTeams ?? (await watchedTeamsOf(deps, channel)),
    });
    const attacks = report.teams.reduce((total, team) => total + team.attacks.length, 0);
    return message(reportSharedText(record, attacks));
  } catch (error) {
    deps.logger.warn({ err: error, gameDay: record.id, channel }, 'could not make the report of a game day');
    return message(reportAgainFailedText(record, error, cmd));
  }
}

/** `gameday end` and End game day: ends at once, unless attacks still run; then asks what to do. */
async function endOrWarn(deps: Deps, actor: Actor, record: GameDayRecord): Promise<Reply> {
  const unfinished = unfinishedOf(record, await latestCards(deps, actor, record));
  if (unfinished.length) return { kind: 'message', message: gameDayEndWarning(record, unfinished) };
  const ended = await endNow(deps, actor, record.channel);
  return message(ended ?? gameDayAlreadyEndedText);
}

/** The team a game day is run with: the person's selected team, where they may run attacks. */
export function requireGameDayTeam(login: Login, command: string): TeamEntry {
  const team = requireTeam(login);
  if (!mayRunAttacks(team)) throw new UserInputError(gameDayStartRefusedText(teamName(team), command));
  return team;
}

/**
 * Refuses an end by anyone but the facilitator or someone whose own session has HALT_WRITE on the
 * game day's team (on any of their teams, for a game day kept before its team was).
 */
export async function requireMayEnd(deps: Deps, actor: Actor, record: GameDayRecord): Promise<void> {
  if (actor.userId === record.facilitator) return;
  const login = await deps.sessions.get(actor);
  const may = login?.session.teams.some(
    (t) => (record.teamId === undefined || t.identifier === record.teamId) && t.privileges.includes('HALT_WRITE'),
  );
  if (!may) throw new UserInputError(gameDayEndRefusedText(record, login !== undefined, deps.config.slack.command));
}

/** The running game day a button points at, or undefined once it has ended (or was replaced). */
async function gameDayOf(deps: Deps, value: string | undefined): Promise<(GameDayRecord & { id: string }) | undefined> {
  const ref = parseGameDayRef(value);
  if (!ref) throw new UserInputError('That button no longer points at a game day.');
  const running = await deps.gameDays.running(ref.channel);
  return running?.ts === ref.ts ? running : undefined;
}

export const gamedayCommand = subcommand({
  name: 'gameday',
  // Every form but those that only show something changes the game day or its plan.
  once: ({ form }) => !['status', 'report', 'plan'].includes(form),
  usage,
  summary:
    'Game-day mode for this channel: attacks, halts, notes and tickets go into one timeline, and ending it posts a summary and the full report as a file.',
  examples: [
    'gameday start Checkout resilience drill',
    'gameday step web-cpu checkout stays under 500 ms p99',
    'gameday step --attack "latency --target-hosts platform-web-1 -l 120 -m 300" checkout retries hide the latency',
    'gameday plan',
    'gameday next',
    'gameday auto on',
    'gameday status',
    'gameday end',
    'gameday report',
  ],
  args: gamedayArgs,
  async run(request, { form, args }, deps) {
    const channel = request.actor.channelId;
    if (!channel) throw new UserInputError('Run game days from a channel.', usage);
    if (form === 'start') {
      const guards = guardsFromFlag(args.flags.guard, deps.config, deps.config.slack.command);
      const title = args.rest;
      const others = otherAttackChannels(deps.config.attackChannels, channel);
      if (others)
        throw new UserInputError(
          `Attacks cannot be started in this channel, so a game day here would stay empty. Use ${channelLinks(others)}.`,
        );
      // A game day is run by someone who may run attacks in their team; its guards act with their session.
      const team = requireGameDayTeam(await requireLogin(deps, request.actor), deps.config.slack.command);
      const { outcome, record } = await deps.gameDays.start(channel, title, request.actor.userId, {
        id: team.identifier,
        name: teamName(team),
      });
      if (outcome === 'starting') return message(gameDayStartingText);
      if (outcome === 'running') return message(gameDayRunningText(record!, deps.config.slack.command));
      const guardLines = guards.length ? await addGameDayGuards(deps, request.actor, record!, guards) : undefined;
      return message(gameDayStartedText(title, guardLines));
    }
    if (form === 'guard') {
      const record = await deps.gameDays.running(channel);
      if (!record) return message(noGameDayText(deps.config.slack.command));
      const values = [...args.rest, ...(args.flags.guard ?? [])];
      if (!values.length) return openGuardPicker(deps, request.actor, record);
      const specs = guardsFromFlag(values, deps.config, deps.config.slack.command);
      await requireMayChangeGuards(deps, request.actor, record, 'add');
      const lines = await addGameDayGuards(deps, request.actor, record, specs);
      return message(gameDayGuardsSetText(record.title, lines));
    }
    if (form === 'unguard') {
      const record = await deps.gameDays.running(channel);
      if (!record) return message(noGameDayText(deps.config.slack.command));
      const specs = guardsFromFlag(args.rest, deps.config, deps.config.slack.command);
      await requireMayChangeGuards(deps, request.actor, record, 'remove');
      const { removed, missing } = await removeGameDayGuards(deps, request.actor, record, specs);
      return message(gameDayGuardsRemovedText(record.title, removed, missing));
    }
    if (form === 'status') {
      const record = await deps.gameDays.running(channel);
      return record
        ? { kind: 'message', message: gameDayStatusMessage(record, await deps.gameDays.outcomes(record)) }
        : message(noGameDayText(deps.config.slack.command));
    }
    if (form === 'report') return reportAgain(deps, request.actor, channel, args.words.id);
    if (form === 'plan') return planFromCommand(deps, request.actor, channel);
    if (form === 'step')
      return stepFromCommand(
        deps,
        request.actor,
        channel,
        { rest: args.rest, attack: args.flags.attack, guard: args.flags.guard, team: args.flags.team },
        usage,
      );
    if (form === 'move') return moveFromCommand(deps, request.actor, channel, args.words.from, args.words.to);
    if (form === 'next') return runNext(deps, request.actor, channel);
    if (form === 'auto') return automatic(deps, request.actor, channel, args.words.on === 'on');
    const record = await deps.gameDays.running(channel);
    if (!record) return message(noGameDayText(deps.config.slack.command));
    await requireMayEnd(deps, request.actor, record);
    return endOrWarn(deps, request.actor, record);
  },
});

/** End game day on the card (behind a confirm dialog). */
export async function endGameDayFromCard(action: Action, deps: Deps): Promise<Reply> {
  const record = await gameDayOf(deps, action.value);
  if (!record) return message(gameDayAlreadyEndedText);
  await requireMayEnd(deps, action.actor, record);
  return endOrWarn(deps, action.actor, record);
}

/** End anyway, on the warning: ends with attacks running; the summary follows them. */
export async function endGameDayAnyway(action: Action, deps: Deps): Promise<Reply> {
  const record = await gameDayOf(deps, action.value);
  if (!record) return replacement(gameDayAlreadyEndedText);
  await requireMayEnd(deps, action.actor, record);
  const ended = await endNow(deps, action.actor, record.channel);
  return replacement(ended ?? gameDayAlreadyEndedText);
}

/**
 * Halt all and end, on the warning: halts the game day's attacks that still run, with the
 * clicker's session, then ends it. An attack that cannot be halted keeps the game day running
 * and says why, so nothing ends with an attack nobody could stop.
 */
export async function haltAndEndGameDay(action: Action, deps: Deps): Promise<Reply> {
  const record = await gameDayOf(deps, action.value);
  if (!record) return replacement(gameDayAlreadyEndedText);
  await requireMayEnd(deps, action.actor, record);
  await requireLogin(deps, action.actor);
  const unfinished = unfinishedOf(record, await latestCards(deps, action.actor, record));
  const failed: (UnfinishedAttack & { reason: string })[] = [];
  for (const item of unfinished) {
    try {
      await haltAttack(deps, action.actor, {
        guid: item.attack.guid,
        teamId: item.attack.teamId,
        kind: item.card.kind,
      });
    } catch (error) {
      deps.logger.warn({ err: error, attack: item.attack.guid }, 'could not halt an attack of the game day');
      failed.push({
        ...item,
        reason: errorInBrief(error, { team: item.attack.teamName, subject: `attack ${item.attack.guid}` }),
      });
    }
  }
  if (failed.length) {
    const problems = failed.map((f) => notHaltedLine(f.attack, f.reason));
    return { kind: 'message', message: gameDayEndWarning(record, failed, problems), replaceOriginal: true };
  }
  const ended = await endNow(deps, action.actor, record.channel, unfinished.length);
  return replacement(ended ?? gameDayAlreadyEndedText);
}

/** Cancel, on the warning. */
export async function keepGameDay(): Promise<Reply> {
  return replacement(gameDayKeptText);
}
