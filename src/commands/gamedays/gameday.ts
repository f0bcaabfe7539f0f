import type { Services } from '../../services.ts';
import { z } from 'zod';
import { otherAttackChannels } from '../../attacks/channels.ts';
import { teamName } from '../../attacks/access.ts';
import { UserInputError } from '../../errors.ts';
import type { Actor } from '../../store/sessions.ts';
import { channelLinks, escapeMrkdwn } from '../../views/blocks.ts';
import { gameDayStatusMessage } from '../../views/gamedays/gamedaySummary.ts';
import {
  ambiguousGameDayIdText,
  badged,
  gameDayGuardsRemovedText,
  gameDayGuardsSetText,
  gameDayRunningText,
  gameDayStartedText,
  gameDayStartingText,
  noGameDayText,
  noReportText,
} from '../../views/gamedays/gamedayWords.ts';
import { planWords } from '../../views/gamedays/planWords.ts';
import { reportAgainFailedText, reportSharedText } from '../../views/gamedays/reportWords.ts';
import { subcommand, message, type Reply } from '../command.ts';
import { actions, contract, flag } from '../contract.ts';
import { guardsFromFlag } from '../guardrails/guardFlags.ts';
import { endOrWarn, requireGameDayTeam, requireMayEnd } from './gamedayEnd.ts';
import { addGuards, openGuardPicker, removeGuards } from './guards.ts';
import { stepFromCommand } from './addStep.ts';
import { automatic, moveFromCommand, planFromCommand, runNext } from './plan.ts';

const usage =
  'gameday start <title> [--rehearsal] [--guard a:<monitor id>] [--guard b:<alert name>] | gameday guard [<guard>…] | gameday unguard <guard>… | gameday status | gameday end | gameday report [id] | gameday plan | gameday step <saved attack> <hypothesis> [--guard …] [--team T] | gameday step --attack "<attack>" <hypothesis> | gameday move <step> <position> | gameday next | gameday auto on [--wait 5m] | gameday auto off';

const stepNumber = (what: string) =>
  z
    .string({ error: `Give the ${what}, a number from the plan.` })
    .regex(/^[1-9]\d{0,2}$/, {
      error: (issue) => `“${escapeMrkdwn(String(issue.input))}” is not a ${what}: give a number from the plan.`,
    })
    .transform(Number);

/** `--wait`: how long the automatic mode waits for the answer on a hypothesis, 0 to 24 hours. */
const waitSchema = z
  .string()
  .regex(/^\d{1,5}\s*(s|m|h)$/i)
  .transform(
    (text) =>
      Number.parseInt(text, 10) *
      { s: 1_000, m: 60_000, h: 3_600_000 }[text.slice(-1).toLowerCase() as 's' | 'm' | 'h'],
  )
  .refine((ms) => ms <= 24 * 3_600_000);

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
      takes: 'a title and `--guard` or `--rehearsal`; put a title that has dashes in quotes',
      rest: z
        .array(z.string())
        .transform((words) => words.join(' ').replace(/\s+/g, ' ').trim())
        .pipe(z.string().min(1, 'Give the game day a title.').max(150, 'Keep the title under 150 characters.')),
      flags: { ...guards, rehearsal: flag.switch() },
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
      flags: { wait: flag.read('a time such as `5m`, `90s` or `1h`', waitSchema) },
    }),
  },
);

/** `gameday report [id]`: the full report of an ended game day of the channel, shared there again. */
async function reportAgain(deps: Services, actor: Actor, channel: string, id: string | undefined): Promise<Reply> {
  const { record, ambiguous } = await deps.gamedays.days.ended(channel, id);
  const cmd = deps.command;
  if (ambiguous) return message(ambiguousGameDayIdText(id!));
  if (!record) {
    const running = await deps.gamedays.days.running(channel);
    return message(badged(running ?? {}, noReportText(id, running?.title, cmd)));
  }
  await deps.login.require(actor);
  try {
    // Game days ended before the watched teams were kept with them use the channel's watches now.
    const report = await deps.gamedays.shareReport(actor, record, {
      watchedTeams: record.watchedTeams ?? (await deps.gamedays.watchedTeams(channel)),
    });
    const attacks = report.teams.reduce((total, team) => total + team.attacks.length, 0);
    return message(reportSharedText(record, attacks));
  } catch (error) {
    deps.logger.warn({ err: error, gameDay: record.id, channel }, 'could not make the report of a game day');
    return message(reportAgainFailedText(record, error, cmd));
  }
}

export const gamedayCommand = subcommand({
  name: 'gameday',
  // Every form but those that only show something changes the game day or its plan.
  once: ({ form }) => !['status', 'report', 'plan'].includes(form),
  usage,
  summary:
    'Game-day mode for this channel: attacks, halts, notes and tickets go into one timeline, and ending it posts a summary and the full report as a file. With `--rehearsal`, the whole plan runs with every step checked and nothing created at the platform.',
  examples: [
    'gameday start Checkout resilience drill',
    'gameday start Checkout resilience drill --rehearsal',
    'gameday step web-cpu checkout stays under 500 ms p99',
    'gameday step --attack "latency --target-hosts platform-web-1 -l 120 -m 300" checkout retries hide the latency',
    'gameday plan',
    'gameday next',
    'gameday auto on --wait 5m',
    'gameday status',
    'gameday end',
    'gameday report',
  ],
  args: gamedayArgs,
  async run(request, { form, args }, deps) {
    const channel = request.actor.channelId;
    if (!channel) throw new UserInputError('Run game days from a channel.', usage);
    if (form === 'start') {
      const guards = guardsFromFlag(args.flags.guard, deps.attacks.settings, deps.command);
      const title = args.rest;
      const others = otherAttackChannels(deps.attacks.settings.attackChannels, channel);
      if (others)
        throw new UserInputError(
          `Attacks cannot be started in this channel, so a game day here would stay empty. Use ${channelLinks(others)}.`,
        );
      // A game day is run by someone who may run attacks in their team; its guards act with their session.
      const team = await requireGameDayTeam(deps, request.actor);
      const rehearsal = args.flags.rehearsal === true;
      const { outcome, record } = await deps.gamedays.days.start(
        channel,
        title,
        request.actor.userId,
        { id: team.identifier, name: teamName(team) },
        { rehearsal },
      );
      if (outcome === 'starting') return message(gameDayStartingText);
      if (outcome === 'running') return message(gameDayRunningText(record!, deps.command, rehearsal));
      const guardLines = guards.length ? await addGuards(deps, request.actor, record!, guards) : undefined;
      return message(gameDayStartedText(record!, guardLines));
    }
    if (form === 'guard') {
      const record = await deps.gamedays.days.running(channel);
      if (!record) return message(noGameDayText(deps.command));
      const values = [...args.rest, ...(args.flags.guard ?? [])];
      if (!values.length) return openGuardPicker(deps, request.actor, record);
      const specs = guardsFromFlag(values, deps.attacks.settings, deps.command);
      const lines = await addGuards(deps, request.actor, record, specs);
      return message(badged(record, gameDayGuardsSetText(record.title, lines)));
    }
    if (form === 'unguard') {
      const record = await deps.gamedays.days.running(channel);
      if (!record) return message(noGameDayText(deps.command));
      const specs = guardsFromFlag(args.rest, deps.attacks.settings, deps.command);
      const { removed, missing } = await removeGuards(deps, request.actor, record, specs);
      return message(badged(record, gameDayGuardsRemovedText(record.title, removed, missing)));
    }
    if (form === 'status') {
      const record = await deps.gamedays.days.running(channel);
      return record
        ? { kind: 'message', message: gameDayStatusMessage(record, await deps.gamedays.days.outcomes(record)) }
        : message(noGameDayText(deps.command));
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
    if (form === 'auto') {
      if (args.words.on === 'off' && args.flags.wait !== undefined)
        throw new UserInputError(planWords.autoWaitAlone, usage);
      return automatic(deps, request.actor, channel, args.words.on === 'on', args.flags.wait);
    }
    const record = await deps.gamedays.days.running(channel);
    if (!record) return message(noGameDayText(deps.command));
    await requireMayEnd(deps, request.actor, record);
    return endOrWarn(deps, request.actor, record);
  },
});
