import type { TeamEntry } from '../client/index.ts';
import { audit } from '../audit.ts';
import type { Deps } from '../deps.ts';
import { explained, UserInputError } from '../errors.ts';
import { type Freeze, freezeScopeText, frozenLine } from '../guardrails/freezes.ts';
import { haltTeamAttacks, type SweptAttack } from '../guardrails/sweep.ts';
import { message } from '../slack/interaction.ts';
import type { Login } from '../store/sessions.ts';
import { escapeMrkdwn } from '../views/blocks.ts';
import { describeError } from '../views/errorReply.ts';
import { platformFor, requireLogin, requireTeam, teamName } from '../attacks/access.ts';
import { matchTeam } from './arguments.ts';
import type { CommandRequest, Subcommand } from './command.ts';

const freezeUsage = 'freeze [--team name | --all] --reason text';
const unfreezeUsage = 'unfreeze [--team name | --all]';
const maxReason = 300;

/** `--team X`, `--all`, or neither (the selected team); never both. */
function scopeOf(request: CommandRequest, login: Login, usage: string): { scope: 'all' } | { scope: 'team'; team: TeamEntry } {
  const { all, team } = request.flags;
  if (all !== undefined && all !== true) throw new UserInputError('`--all` takes no value.', usage);
  if (all && team !== undefined) throw new UserInputError('Name one team with --team, or every team with --all, not both.', usage);
  if (all) return { scope: 'all' };
  if (team === undefined) return { scope: 'team', team: requireTeam(login) };
  if (typeof team !== 'string' || !team.trim()) throw new UserInputError('--team needs the name of one of your teams.', usage);
  return { scope: 'team', team: matchTeam(login.session.teams, team) };
}

/** The reason, from --reason or, when that is missing, the words typed after the flags. */
function reasonOf(request: CommandRequest): string {
  const flag = request.flags.reason;
  if (flag !== undefined && typeof flag !== 'string') throw new UserInputError('--reason needs some text, in quotes if it has spaces.', freezeUsage);
  const reason = (flag ?? request.words.join(' ')).replace(/\s+/g, ' ').trim();
  if (!reason) throw new UserInputError('Say why with --reason, e.g. `--reason "incident in checkout"`: everyone refused a start will read it.', freezeUsage);
  if (reason.length > maxReason) throw new UserInputError(`Keep the reason under ${maxReason} characters.`, freezeUsage);
  return reason;
}

function attackNames(list: SweptAttack[]): string {
  return list.map((a) => `\`${a.guid}\``).join(', ');
}

export const freezeCommand: Subcommand = {
  name: 'freeze',
  usage: freezeUsage,
  summary: 'Halts every attack of a team (or, with `--all`, everything on the platform) and refuses every start there through Faultline until `unfreeze`. For real incidents.',
  examples: ['freeze --reason "incident in checkout"', 'freeze --team Payments --reason "payment provider outage"', 'freeze --all --reason "major incident"'],
  async run(request, deps) {
    const actor = request.actor;
    const login = await requireLogin(deps, actor);
    const scope = scopeOf(request, login, freezeUsage);
    const reason = reasonOf(request);
    const cmd = deps.config.slack.command;
    const existing = await deps.freezes.get(scope.scope, scope.scope === 'team' ? scope.team.identifier : undefined);
    const freeze: Freeze = {
      scope: scope.scope,
      ...(scope.scope === 'team' ? { teamId: scope.team.identifier, teamName: teamName(scope.team) } : {}),
      by: { workspaceId: actor.workspaceId, userId: actor.userId, userName: actor.userName },
      reason,
      since: existing?.since ?? new Date(deps.clock.now()).toISOString(),
      channel: actor.channelId,
    };
    const halt = { reason: `frozen: ${reason}`, reference: `slack:${actor.workspaceId}:${actor.userId}` };
    let outcome: string;
    if (scope.scope === 'all') {
      // Everything is halted first: a freeze of every team that could not halt would promise too much.
      await explained({ doing: 'halt everything on the platform' }, () => platformFor(deps, login, undefined).attacks.haltEverything(halt));
      await deps.freezes.declare(freeze);
      outcome = 'Every active impact on the platform was halted.';
    } else {
      // Declared first, so no start slips in between the list and the halts.
      await deps.freezes.declare(freeze);
      try {
        const { halted, failed } = await haltTeamAttacks(platformFor(deps, login, scope.team), halt);
        outcome = halted.length ? `Halted ${halted.length === 1 ? '1 attack' : `${halted.length} attacks`}: ${attackNames(halted)}.` : 'No attack was running there.';
        if (failed.length) outcome += ` :warning: Could not halt ${attackNames(failed)}; halt ${failed.length === 1 ? 'it' : 'them'} from the web UI or with \`${cmd} halt <id>\`.`;
      } catch (error) {
        const why = describeError(error, { command: cmd }).text ?? 'the platform did not answer';
        outcome = `:warning: Could not read its attacks to halt them (${why}). Halt them from the web UI, or with \`${cmd} halt all\`.`;
      }
    }
    audit(deps.logger, 'freeze', actor, { platformUser: login.session.identifier, team: freeze.teamId, scope: freeze.scope, reason });
    const where = freezeScopeText(freeze);
    const lift = freeze.scope === 'all' ? `${cmd} unfreeze --all` : `${cmd} unfreeze --team ${freeze.teamName}`;
    const announcement = `:snowflake: <@${actor.userId}> froze attacks in ${where}: ${escapeMrkdwn(reason)}. ${outcome} No attack starts there through Faultline until \`${escapeMrkdwn(lift)}\`.`;
    if (actor.channelId) {
      const posted = await deps.slack.post(actor.channelId, { text: announcement }).then(() => true, (error: unknown) => {
        deps.logger.warn({ err: error }, 'could not announce a freeze in its channel');
        return false;
      });
      if (posted) return message(existing ? `${where} was already frozen; the freeze now has your reason.` : `Done: ${where} is frozen.`);
    }
    return message(announcement);
  },
};

export const unfreezeCommand: Subcommand = {
  name: 'unfreeze',
  usage: unfreezeUsage,
  summary: 'Lifts a freeze: attacks can start again in that team (`--team`), or everywhere (`--all`).',
  examples: ['unfreeze', 'unfreeze --team Payments', 'unfreeze --all'],
  async run(request, deps) {
    const actor = request.actor;
    const login = await requireLogin(deps, actor);
    const scope = scopeOf(request, login, unfreezeUsage);
    if (request.words.length) throw new UserInputError('`unfreeze` takes only --team or --all.', unfreezeUsage);
    const teamId = scope.scope === 'team' ? scope.team.identifier : undefined;
    const freeze = await deps.freezes.get(scope.scope, teamId);
    const cmd = deps.config.slack.command;
    if (!freeze) {
      const all = scope.scope === 'team' ? await deps.freezes.get('all') : undefined;
      if (all) return message(`*${escapeMrkdwn(teamName((scope as { team: TeamEntry }).team))}* has no freeze of its own, but every team is ${frozenLine(all)}. \`${cmd} unfreeze --all\` lifts that.`);
      return message(scope.scope === 'all' ? 'There is no freeze of every team.' : `*${escapeMrkdwn(teamName(scope.team))}* is not frozen.`);
    }
    await deps.freezes.lift(scope.scope, teamId);
    audit(deps.logger, 'unfreeze', actor, { platformUser: login.session.identifier, team: teamId, scope: scope.scope });
    const text = `:sunny: <@${actor.userId}> lifted the freeze on ${freezeScopeText(freeze)} (${frozenLine(freeze)}). Attacks can start there again.`;
    for (const channel of new Set([freeze.channel, actor.channelId].filter((c): c is string => !!c))) {
      await deps.slack.post(channel, { text }).catch((error: unknown) => deps.logger.warn({ err: error }, 'could not announce the end of a freeze'));
    }
    return message(`Done: ${freezeScopeText(freeze)} is no longer frozen.`);
  },
};
