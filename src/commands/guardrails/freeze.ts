import type { TeamEntry } from '../../client/index.ts';
import { audit } from '../../audit.ts';
import { UserInputError } from '../../errors.ts';
import type { Freeze } from '../../guardrails/freezes.ts';
import {
  type FreezeHalting,
  freezeLiftedAnnouncement,
  frozenAnnouncement,
  frozenText,
  notFrozenText,
  unfrozenText,
} from '../../views/guardrails/freeze.ts';
import { haltEverything } from '../../attacks/massHalts.ts';
import { haltTeamAttacks } from '../../guardrails/sweep.ts';
import { message } from '../reply.ts';
import type { Actor, Login } from '../../store/sessions.ts';
import type { Deps } from '../../deps.ts';
import { escapeMrkdwn } from '../../views/blocks.ts';
import { platformFor, requireLogin, requireTeam, teamName } from '../../attacks/access.ts';
import { z } from 'zod';
import { matchTeam } from '../arguments.ts';
import { subcommand } from '../command.ts';
import { contract, flag } from '../contract.ts';

const freezeUsage = 'freeze [--team name | --all] --reason text';
const unfreezeUsage = 'unfreeze [--team name | --all]';
const maxReason = 300;

/** Where a freeze stands: one team, or every team. */
const scopeFlags = { team: flag.value('the name of one of your teams'), all: flag.switch() };

/** `--team X`, `--all`, or neither (the selected team); never both. */
export function scopeOf(
  { all, team }: { all?: true | undefined; team?: string | undefined },
  login: Login,
  usage: string,
): { scope: 'all' } | { scope: 'team'; team: TeamEntry } {
  if (all && team !== undefined)
    throw new UserInputError('Name one team with --team, or every team with --all, not both.', usage);
  if (all) return { scope: 'all' };
  if (team === undefined) return { scope: 'team', team: requireTeam(login) };
  return { scope: 'team', team: matchTeam(login.session.teams, team) };
}

export type Scope = ReturnType<typeof scopeOf>;

/**
 * Refuses a person whose platform role could not halt in the scope: HALT_WRITE on the team, or
 * HALT_ALL for every team. Freezing and lifting need the same, so nobody lifts a freeze they could
 * not have declared. The privileges are those of the stored session.
 */
function requireHaltPrivilege(login: Login, scope: Scope, doing: string): void {
  if (scope.scope === 'all') {
    if (login.session.privileges.includes('HALT_ALL')) return;
    throw new UserInputError(
      `You cannot ${doing} every team: your platform role lacks the \`HALT_ALL\` privilege in your company. Ask a company owner or admin, or name one team with --team.`,
    );
  }
  if (scope.team.privileges.includes('HALT_WRITE')) return;
  const name = `*${escapeMrkdwn(teamName(scope.team))}*`;
  throw new UserInputError(
    `You cannot ${doing} ${name}: your platform role lacks the \`HALT_WRITE\` privilege on team ${name}. Ask an owner of the team for a role that has it.`,
  );
}

/** The reason, from --reason or, when that is missing, the words typed after the flags. */
export function reasonOf(flag: string | undefined, words: string[]): string {
  if (flag !== undefined && words.length) {
    throw new UserInputError(
      `Put the whole reason in quotes, e.g. \`--reason "${escapeMrkdwn([flag, ...words].join(' ').slice(0, 60))}"\`: words outside them would be lost.`,
      freezeUsage,
    );
  }
  const reason = (flag ?? words.join(' ')).replace(/\s+/g, ' ').trim();
  if (!reason)
    throw new UserInputError(
      'Say why with --reason, e.g. `--reason "incident in checkout"`: everyone refused a start will read it.',
      freezeUsage,
    );
  if (reason.length > maxReason)
    throw new UserInputError(`Keep the reason under ${maxReason} characters.`, freezeUsage);
  return reason;
}

/** What declaring a freeze did: the freeze, whether one stood there already, and what its halt did. */
export interface Declared {
  freeze: Freeze;
  wasFrozen: boolean;
  halting: FreezeHalting;
  /** The channel's announcement, when it was posted; otherwise its words, for the person. */
  announced: boolean;
  announcement: string;
}

/**
 * How many live attacks Faultline follows in the person's teams: what a halt of everything stops,
 * as far as Faultline can tell, since the platform's answer to it counts nothing.
 */
async function liveAttacksFollowed(deps: Deps, login: Login): Promise<number> {
  const teams = new Set(login.session.teams.map((team) => team.identifier));
  try {
    let count = 0;
    for (const [teamId, guids] of await deps.cards.liveByTeam()) if (teams.has(teamId)) count += guids.length;
    return count;
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not count the live attacks before halting everything');
    return 0;
  }
}

/**
 * Declares a freeze and halts what runs in its scope, with the person's session: for `freeze`
 * and the Freeze chaos step alike. The privilege is checked first; the freeze is declared before
 * the halt, so no start slips in between, and a halt that fails leaves it standing.
 */
export async function declareFreeze(
  deps: Deps,
  actor: Actor,
  login: Login,
  scope: Scope,
  reason: string,
): Promise<Declared> {
  // Refused up front: a freeze that cannot halt would promise what it cannot keep.
  requireHaltPrivilege(login, scope, 'freeze');
  const existing = await deps.freezes.get(scope.scope, scope.scope === 'team' ? scope.team.identifier : undefined);
  const freeze: Freeze = {
    scope: scope.scope,
    ...(scope.scope === 'team' ? { teamId: scope.team.identifier, teamName: teamName(scope.team) } : {}),
    by: { workspaceId: actor.workspaceId, userId: actor.userId, userName: actor.userName },
    reason,
    since: existing?.since ?? new Date(deps.clock.now()).toISOString(),
    channel: actor.channelId,
  };
  const halter = {
    by: actor,
    platformUser: login.session.identifier,
    cause: 'freeze' as const,
    reason: `frozen: ${reason}`,
  };
  let halting: FreezeHalting;
  await deps.freezes.declare(freeze);
  if (scope.scope === 'all') {
    const followed = await liveAttacksFollowed(deps, login);
    try {
      await haltEverything(deps, platformFor(deps, login, undefined), halter, undefined);
      halting = { scope: 'all', followed };
    } catch (error) {
      deps.logger.warn({ err: error }, 'a freeze of every team could not halt everything');
      halting = { scope: 'all', followed, error };
    }
  } else {
    try {
      const swept = await haltTeamAttacks(deps, platformFor(deps, login, scope.team), halter);
      halting = { scope: 'team', teamName: teamName(scope.team), swept };
    } catch (error) {
      deps.logger.warn({ err: error }, 'a freeze could not halt the attacks of its team');
      halting = { scope: 'team', teamName: teamName(scope.team), error };
    }
  }
  await deps.events.record({
    kind: 'frozen',
    by: actor,
    platformUser: login.session.identifier,
    scope: freeze.scope,
    teamId: freeze.teamId,
    reason,
  });
  const announcement = frozenAnnouncement(actor.userId, freeze, halting, deps.config.slack.command);
  const announced = actor.channelId
    ? await deps.slack.post(actor.channelId, { text: announcement }).then(
        () => true,
        (error: unknown) => {
          deps.logger.warn({ err: error }, 'could not announce a freeze in its channel');
          return false;
        },
      )
    : false;
  return { freeze, wasFrozen: !!existing, halting, announced, announcement };
}

/**
 * What lifting a freeze found: the freeze lifted, or none, with what stands instead (the freeze
 * of everything, for a team; the teams' own freezes, for every team).
 */
export type Lifted =
  | { freeze: Freeze }
  | { freeze: undefined; standing: { all?: Freeze | undefined; teams?: Freeze[] | undefined } };

/** Lifts the freeze of the scope, for `unfreeze` and the Unfreeze chaos step; needs what declaring it needs. */
export async function liftFreeze(deps: Deps, actor: Actor, login: Login, scope: Scope): Promise<Lifted> {
  const teamId = scope.scope === 'team' ? scope.team.identifier : undefined;
  const freeze = await deps.freezes.get(scope.scope, teamId);
  if (!freeze) {
    if (scope.scope === 'team') return { freeze: undefined, standing: { all: await deps.freezes.get('all') } };
    const teams = await deps.freezes.touching(login.session.teams.map((t) => t.identifier));
    return { freeze: undefined, standing: { teams: teams.filter((f) => f.scope === 'team') } };
  }
  requireHaltPrivilege(login, scope, 'lift the freeze on');
  await deps.freezes.lift(scope.scope, teamId);
  audit(deps.logger, 'unfreeze', actor, { platformUser: login.session.identifier, team: teamId, scope: scope.scope });
  const text = freezeLiftedAnnouncement(actor.userId, freeze);
  for (const channel of new Set([freeze.channel, actor.channelId].filter((c): c is string => !!c))) {
    await deps.slack
      .post(channel, { text })
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'could not announce the end of a freeze'));
  }
  return { freeze };
}

export const freezeCommand = subcommand({
  name: 'freeze',
  once: true,
  usage: freezeUsage,
  summary:
    'Halts every attack of a team (or, with `--all`, everything on the platform) and refuses every start there through Faultline until `unfreeze`. For real incidents.',
  examples: [
    'freeze --reason "incident in checkout"',
    'freeze --team Payments --reason "payment provider outage"',
    'freeze --all --reason "major incident"',
  ],
  args: contract({
    command: 'freeze',
    usage: freezeUsage,
    rest: z.array(z.string()),
    flags: { ...scopeFlags, reason: flag.value('some text, in quotes if it has spaces') },
  }),
  async run(request, { rest, flags }, deps) {
    const login = await requireLogin(deps, request.actor);
    const scope = scopeOf(flags, login, freezeUsage);
    const reason = reasonOf(flags.reason, rest);
    const declared = await declareFreeze(deps, request.actor, login, scope, reason);
    return message(declared.announced ? frozenText(declared.freeze, declared.wasFrozen) : declared.announcement);
  },
});

export const unfreezeCommand = subcommand({
  name: 'unfreeze',
  once: true,
  usage: unfreezeUsage,
  summary: 'Lifts a freeze: attacks can start again in that team (`--team`), or everywhere (`--all`).',
  examples: ['unfreeze', 'unfreeze --team Payments', 'unfreeze --all'],
  args: contract({
    command: 'unfreeze',
    usage: unfreezeUsage,
    rest: z.array(z.string()).max(0, '`unfreeze` takes only --team or --all.'),
    flags: scopeFlags,
  }),
  async run(request, { flags }, deps) {
    const login = await requireLogin(deps, request.actor);
    const scope = scopeOf(flags, login, unfreezeUsage);
    const lifted = await liftFreeze(deps, request.actor, login, scope);
    if (!lifted.freeze)
      return message(
        notFrozenText(
          scope.scope === 'team' ? teamName(scope.team) : undefined,
          lifted.standing,
          deps.config.slack.command,
        ),
      );
    return message(unfrozenText(lifted.freeze));
  },
});
