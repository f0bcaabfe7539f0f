import type { Services } from '../../services.ts';
import { requireTeam } from '../../attacks/access.ts';
import type { Watch } from '../../attacks/watches.ts';
import type { TeamEntry } from '../../client/index.ts';
import { UserInputError } from '../../errors.ts';
import { message, type CommandRequest, subcommand } from '../command.ts';
import type { Login } from '../../store/sessions.ts';
import { escapeMrkdwn } from '../../views/blocks.ts';
import {
  alreadyWatchingText,
  notWatchingText,
  unwatchedText,
  watchingText,
  watchSetText,
  watchStoppedText,
} from '../../views/attacks/watch.ts';
import { matchTeam } from '../arguments.ts';
import { z } from 'zod';
import { contract, flag } from '../contract.ts';

const watchUsage = 'watch [team | --team name]';
const unwatchUsage = 'unwatch [team | --team name]';

/** The team typed after the subcommand (its name may have spaces), or with `--team`. */
const teamArgs = (command: string, usage: string) =>
  contract({ command, usage, rest: z.array(z.string()), flags: { team: flag.value('the name of one of your teams') } });

/** What both subcommands read first: the channel they run in, the person's login and the team named, if any. */
async function watchRequest(
  request: CommandRequest,
  { rest, flags }: ReturnType<ReturnType<typeof teamArgs>['read']>,
  deps: Services,
  usage: string,
) {
  const channel = request.actor.channelId;
  if (!channel) throw new UserInputError('Run it in the channel that should get the cards.', usage);
  const login = await deps.login.require(request.actor);
  const words = rest.join(' ').trim();
  if (flags.team !== undefined && words) throw new UserInputError('Name the team once.', usage);
  return { channel, login, typed: flags.team ?? (words || undefined) };
}

export const watchCommand = subcommand({
  name: 'watch',
  once: true,
  usage: watchUsage,
  summary:
    'Binds this channel to a team (your selected team when none is named): every attack of the team, wherever it starts (web UI, API, scenarios, other channels), gets a live card here. Your session reads the team for it; run it again to renew a paused watch.',
  examples: ['watch', 'watch Payments'],
  args: teamArgs('watch', watchUsage),
  async run(request, args, deps) {
    const { channel, login, typed } = await watchRequest(request, args, deps, watchUsage);
    const actor = request.actor;
    const team = typed ? matchTeam(login.session.teams, typed, watchUsage) : requireTeam(login);
    const cmd = deps.command;
    const set = await deps.attacks.watch(actor, login, team, channel, async (watch, renewal) => {
      try {
        await deps.slack.post(channel, { text: watchSetText(watch, renewal) });
      } catch (error) {
        deps.logger.warn({ err: error, channel }, 'could not announce a watch in its channel');
        throw new UserInputError(
          'Faultline cannot post in this channel, so it could not show cards here. Invite it with `/invite @Faultline`, then try again.',
        );
      }
    });
    if ('already' in set) return message(alreadyWatchingText(set.already, cmd));
    return message(watchingText(set.watch, deps.attacks.settings.pollSeconds, cmd));
  },
});

/** The watch `unwatch` means: the team named (one of the person's, or one the channel watches), else the channel's only one, else the selected team's. */
function watchToRemove(watches: Watch[], login: Login, typed: string | undefined, cmd: string): Watch | undefined {
  if (typed) {
    let team: TeamEntry | undefined;
    try {
      team = matchTeam(login.session.teams, typed, unwatchUsage);
    } catch (error) {
      // A team the person cannot see may still be watched here (set by someone else): match its name.
      const q = typed.toLowerCase();
      const named = watches.filter((w) => w.teamId.toLowerCase() === q || w.teamName.toLowerCase() === q);
      if (named.length === 1) return named[0];
      throw error;
    }
    return watches.find((w) => w.teamId === team.identifier);
  }
  if (watches.length <= 1) return watches[0];
  const selected = watches.find((w) => w.teamId === login.team?.identifier);
  if (selected) return selected;
  const names = watches.map((w) => `*${escapeMrkdwn(w.teamName)}*`).join(', ');
  throw new UserInputError(`This channel watches ${names}. Say which: \`${cmd} unwatch <team>\`.`, unwatchUsage);
}

export const unwatchCommand = subcommand({
  name: 'unwatch',
  once: true,
  usage: unwatchUsage,
  summary:
    "Stops this channel's watch of a team (the one it watches, or the one named): no more cards here for attacks started elsewhere.",
  examples: ['unwatch', 'unwatch Payments'],
  args: teamArgs('unwatch', unwatchUsage),
  async run(request, args, deps) {
    const { channel, login, typed } = await watchRequest(request, args, deps, unwatchUsage);
    const actor = request.actor;
    const cmd = deps.command;
    const watches = await deps.attacks.watches.inChannel(channel);
    const watch = watchToRemove(watches, login, typed, cmd);
    if (!watch) return message(notWatchingText(typed));
    await deps.attacks.unwatch(actor, login, watch);
    await deps.slack
      .post(channel, {
        text: watchStoppedText(actor.userId, watch),
      })
      .catch((error: unknown) => {
        deps.logger.warn({ err: error, channel }, 'could not announce the end of a watch');
      });
    return message(unwatchedText(watch));
  },
});
