import type { Deps } from '../deps.ts';
import { escapeMrkdwn } from '../views/blocks.ts';
import { cardOutcome, gameDayStatusMessage, gameDaySummary, noGameDayText, parseGameDayRef, type GameDayOutcomes, type GameDayRecord } from '../views/gameday.ts';
import { isLive } from '../attacks/cards.ts';
import { otherAttackChannels } from '../attacks/channels.ts';
import { type Action, message, type Reply } from '../slack/interaction.ts';
import type { Subcommand } from './command.ts';
import { UserInputError } from '../errors.ts';
import type { Actor } from '../store/sessions.ts';
import { platformFor, requireLogin } from '../attacks/access.ts';
import { checkGuards } from '../guardrails/guardCheck.ts';
import { guardKey, guardLine, guardsFromFlag, type GuardSpec } from '../guardrails/guards.ts';

const usage = 'gameday start <title> [--guard a:<monitor id>] [--guard b:<alert name>] | gameday guard <guard>… | gameday status | gameday end';

/** The `--guard` flags removed from free text such as the title. */
function withoutGuardFlags(text: string): string {
  return text.replace(/(^|\s)--guard(?:=|\s+)\S+/g, ' ').replace(/\s+/g, ' ').trim();
}

/** Adds guards to the channel's running game day and says so in its thread. */
async function addGameDayGuards(deps: Deps, actor: Actor, record: { id: string; channel: string; ts: string }, specs: GuardSpec[]): Promise<string> {
  const owner = { workspaceId: actor.workspaceId, userId: actor.userId, userName: actor.userName };
  const login = await deps.sessions.get(actor);
  const all = await deps.guards.addToGameDay(record.id, specs.map((spec) => ({ spec, owner })));
  const readings = login?.team ? await checkGuards(deps, platformFor(deps, login, login.team), all.filter((g) => specs.some((s) => guardKey(s) === guardKey(g.spec)))) : [];
  const lines = specs.map((spec) => guardLine(spec, readings.find((r) => guardKey(r.guard.spec) === guardKey(spec))?.reading));
  const text = `:shield: <@${actor.userId}> set ${specs.length === 1 ? 'a guard' : `${specs.length} guards`} on this game day: every attack started here is refused while ${specs.length === 1 ? 'it is' : 'one is'} unhealthy, and halted if ${specs.length === 1 ? 'it fires' : 'one fires'}.\n${lines.join('\n')}`;
  if (record.ts) await deps.slack.post(record.channel, { text }, { threadTs: record.ts }).catch((error: unknown) => deps.logger.warn({ err: error }, 'could not post the guards in the game-day thread'));
  return lines.join('\n');
}

/**
 * How each attack of the game day ended, from its card; attacks still live are read once more
 * with the ender's session, so the summary does not wait for the next poll.
 */
async function outcomesOf(deps: Deps, actor: Actor, record: GameDayRecord): Promise<GameDayOutcomes> {
  const login = await deps.sessions.get(actor);
  const outcomes: GameDayOutcomes = {};
  for (const attack of record.attacks) {
    let card = await deps.cards.get(attack.guid);
    const team = login?.session.teams.find((t) => t.identifier === attack.teamId);
    if (card && isLive(card) && login && team) {
      const state = await platformFor(deps, login, team).attacks.get(attack.guid).catch(() => undefined);
      if (state) card = await deps.poller.show(card, state);
    }
    outcomes[attack.guid] = cardOutcome(card);
  }
  return outcomes;
}

async function endGameDay(deps: Deps, actor: Actor, channel: string): Promise<Reply> {
  const record = await deps.gameDays.end(channel);
  if (!record) return message(noGameDayText(deps.config.slack.command));
  const summary = gameDaySummary(record, await outcomesOf(deps, actor, record));
  await deps.slack.post(channel, summary);
  return message(`:checkered_flag: Game day *${escapeMrkdwn(record.title)}* ended; its summary is in the channel.`);
}

export const gamedayCommand: Subcommand = {
  name: 'gameday',
  usage,
  summary: 'Game-day mode for this channel: attacks, halts, notes and tickets go into one timeline, and ending it posts a summary.',
  examples: ['gameday start Checkout resilience drill', 'gameday status', 'gameday end'],
  async run(request, deps) {
    const channel = request.actor.channelId;
    if (!channel) throw new UserInputError('Run game days from a channel.', usage);
    const verb = request.words[0]?.toLowerCase();
    if (verb === 'start') {
      const guards = guardsFromFlag(request.flags.guard, deps.config, deps.config.slack.command);
      // Guards are read and act with the session of the person who sets them.
      if (guards.length) await requireLogin(deps, request.actor);
      const title = withoutGuardFlags(request.rest.trim().replace(/^start\s*/i, ''));
      if (!title) throw new UserInputError('Give the game day a title.', usage);
      if (title.length > 150) throw new UserInputError('Keep the title under 150 characters.', usage);
      const others = otherAttackChannels(deps.config.attackChannels, channel);
      if (others) throw new UserInputError(`Attacks cannot be started in this channel, so a game day here would stay empty. Use ${others}.`);
      const { outcome, record } = await deps.gameDays.start(channel, title, request.actor.userId);
      if (outcome === 'starting') return message('Someone is starting a game day in this channel right now; see its card in a moment.');
      if (outcome === 'running') return message(`A game day is already running here: *${escapeMrkdwn(record!.title)}*, facilitated by <@${record!.facilitator}>. End it with \`${deps.config.slack.command} gameday end\` first.`);
      const guarded = guards.length ? `\nGuards:\n${await addGameDayGuards(deps, request.actor, record!, guards)}` : '';
      return message(`:rocket: Game day *${escapeMrkdwn(title)}* started. Its card is in the channel; attacks started here go into its thread.${guarded}`);
    }
    if (verb === 'guard') {
      const record = await deps.gameDays.running(channel);
      if (!record) return message(noGameDayText(deps.config.slack.command));
      const values = [...request.words.slice(1), ...(request.flags.guard === undefined ? [] : [request.flags.guard].flat())];
      if (!values.length) throw new UserInputError('Name the guard: `a:<monitor id>` for a monitoringA monitor, `b:<alert name>` for a monitoringB alert.', usage);
      const specs = guardsFromFlag(values, deps.config, deps.config.slack.command);
      await requireLogin(deps, request.actor);
      const lines = await addGameDayGuards(deps, request.actor, record, specs);
      return message(`:shield: Guards set on game day *${escapeMrkdwn(record.title)}*:\n${lines}`);
    }
    if (verb === 'status') {
      const record = await deps.gameDays.running(channel);
      return record ? { kind: 'message', message: gameDayStatusMessage(record) } : message(noGameDayText(deps.config.slack.command));
    }
    if (verb === 'end') return endGameDay(deps, request.actor, channel);
    throw new UserInputError(verb ? `“${escapeMrkdwn(verb)}” is not a game-day action.` : 'Start, show or end a game day.', usage);
  },
};

/** End game day on the card (behind a confirm dialog). */
export async function endGameDayFromCard(action: Action, deps: Deps): Promise<Reply> {
  const ref = parseGameDayRef(action.value);
  if (!ref) throw new UserInputError('That button no longer points at a game day.');
  const running = await deps.gameDays.running(ref.channel);
  if (!running || running.ts !== ref.ts) return message('That game day has already ended.');
  return endGameDay(deps, action.actor, ref.channel);
}
