import type { Deps } from '../deps.ts';
import { escapeMrkdwn } from '../views/blocks.ts';
import { cardOutcome, gameDayStatusMessage, gameDaySummary, noGameDayText, parseGameDayRef, type GameDayOutcomes, type GameDayRecord } from '../views/gameday.ts';
import { isLive } from '../attacks/cards.ts';
import { otherAttackChannels } from '../attacks/channels.ts';
import { type Action, message, type Reply } from '../slack/interaction.ts';
import type { Subcommand } from './command.ts';
import { UserInputError } from '../errors.ts';
import type { Actor } from '../store/sessions.ts';
import { platformFor } from '../attacks/access.ts';

const usage = 'gameday start <title> | gameday status | gameday end';

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
      const title = request.rest.trim().replace(/^start\s*/i, '').trim();
      if (!title) throw new UserInputError('Give the game day a title.', usage);
      if (title.length > 150) throw new UserInputError('Keep the title under 150 characters.', usage);
      const others = otherAttackChannels(deps.config.attackChannels, channel);
      if (others) throw new UserInputError(`Attacks cannot be started in this channel, so a game day here would stay empty. Use ${others}.`);
      const { outcome, record } = await deps.gameDays.start(channel, title, request.actor.userId);
      if (outcome === 'starting') return message('Someone is starting a game day in this channel right now; see its card in a moment.');
      if (outcome === 'running') return message(`A game day is already running here: *${escapeMrkdwn(record!.title)}*, facilitated by <@${record!.facilitator}>. End it with \`${deps.config.slack.command} gameday end\` first.`);
      return message(`:rocket: Game day *${escapeMrkdwn(title)}* started. Its card is in the channel; attacks started here go into its thread.`);
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
