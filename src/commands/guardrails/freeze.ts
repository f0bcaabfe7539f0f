import { UserInputError } from '../../errors.ts';
import type { Declared, Lifted, Scope } from '../../guardrails/freezes.ts';
import {
  freezeLiftedAnnouncement,
  frozenAnnouncement,
  frozenText,
  notFrozenText,
  unfrozenText,
} from '../../views/guardrails/freeze.ts';
import { message, subcommand } from '../command.ts';
import type { Actor, Login } from '../../store/sessions.ts';
import type { Services } from '../../services.ts';
import { escapeMrkdwn } from '../../views/blocks.ts';
import { requireTeam, teamName } from '../../attacks/access.ts';
import { z } from 'zod';
import { matchTeam } from '../arguments.ts';
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
): Scope {
  if (all && team !== undefined)
    throw new UserInputError('Name one team with --team, or every team with --all, not both.', usage);
  if (all) return { scope: 'all' };
  if (team === undefined) return { scope: 'team', team: requireTeam(login) };
  return { scope: 'team', team: matchTeam(login.session.teams, team, usage) };
}

/** The reason, from --reason or, when that is missing, the words typed after the flags. */
function reasonOf(flag: string | undefined, words: string[]): string {
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

/**
 * What declaring a freeze did, announced where the domain says (the person's channel and the
 * team's); whether the person's channel has it, and its words for a reply when it does not.
 */
export async function announceFreeze(
  { slack, logger, command }: Services,
  actor: Actor,
  declared: Declared,
): Promise<{ announced: boolean; announcement: string }> {
  const announcement = frozenAnnouncement(actor.userId, declared.freeze, declared.halting, command);
  let announced = false;
  for (const channel of declared.announceIn) {
    const posted = await slack.post(channel, { text: announcement }).then(
      () => true,
      (error: unknown) => {
        logger.warn({ err: error }, 'could not announce a freeze in a channel');
        return false;
      },
    );
    if (channel === actor.channelId) announced = posted;
  }
  return { announced, announcement };
}

/** A lifted freeze, announced where it was declared and where it was lifted. */
export async function announceLift({ slack, logger }: Services, actor: Actor, lifted: Lifted): Promise<void> {
  if (!lifted.freeze) return;
  const text = freezeLiftedAnnouncement(actor.userId, lifted.freeze);
  for (const channel of new Set([lifted.freeze.channel, actor.channelId].filter((c): c is string => !!c))) {
    await slack
      .post(channel, { text })
      .catch((error: unknown) => logger.warn({ err: error }, 'could not announce the end of a freeze'));
  }
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
  async run(request, { rest, flags }, services) {
    const { guardrails } = services;
    const login = await services.login.require(request.actor);
    const scope = scopeOf(flags, login, freezeUsage);
    const reason = reasonOf(flags.reason, rest);
    const declared = await guardrails.freeze(request.actor, login, scope, reason);
    const { announced, announcement } = await announceFreeze(services, request.actor, declared);
    return message(announced || declared.wasFrozen ? frozenText(declared.freeze, declared.wasFrozen) : announcement);
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
  async run(request, { flags }, services) {
    const login = await services.login.require(request.actor);
    const scope = scopeOf(flags, login, unfreezeUsage);
    const lifted = await services.guardrails.unfreeze(request.actor, login, scope);
    if (!lifted.freeze)
      return message(
        notFrozenText(scope.scope === 'team' ? teamName(scope.team) : undefined, lifted.standing, services.command),
      );
    await announceLift(services, request.actor, lifted);
    return message(unfrozenText(lifted.freeze));
  },
});
