import type { TeamEntry } from '../client/index.ts';
import { teamName } from '../attacks/access.ts';
import { UserInputError } from '../errors.ts';
import { escapeMrkdwn } from '../views/blocks.ts';
import { closestWord } from './suggest.ts';

/** How a team is named, shown when none of a person's teams matches. */
export const teamUsage = 'team [name or id]';

const guidPattern = /^[0-9a-zA-Z][0-9a-zA-Z-]{7,63}$/;

/** The attack id a command was given, or a UserInputError that says what an id looks like. */
export function requireGuid(value: string | undefined, usageLine: string): string {
  if (!value)
    throw new UserInputError('Which attack? Give its id (it is on the attack card and in `list`).', usageLine);
  if (!guidPattern.test(value)) throw new UserInputError(`“${escapeMrkdwn(value)}” is not an attack id.`, usageLine);
  return value;
}

/** Finds one team by id, exact name, or an unambiguous part of the name (case-insensitive). */
export function matchTeam(teams: TeamEntry[], query: string, usage: string = teamUsage): TeamEntry {
  const q = query.trim().toLowerCase();
  const exact = teams.filter((t) => t.identifier.toLowerCase() === q || teamName(t).toLowerCase() === q);
  if (exact.length === 1) return exact[0]!;
  const partial = exact.length ? exact : teams.filter((t) => teamName(t).toLowerCase().includes(q));
  if (partial.length === 1) return partial[0]!;
  const names = (list: TeamEntry[]) =>
    list
      .slice(0, 10)
      .map((t) => `*${escapeMrkdwn(teamName(t))}*`)
      .join(', ') + (list.length > 10 ? `, and ${list.length - 10} more` : '');
  if (partial.length > 1)
    throw new UserInputError(
      `More than one of your teams matches “${escapeMrkdwn(query)}”: ${names(partial)}. Type more of the name, or its id.`,
      usage,
    );
  throw new UserInputError(`None of your teams matches “${escapeMrkdwn(query)}”. Your teams: ${names(teams)}.`, usage);
}

/** A flag as typed: `-t` for one letter, `--team` otherwise. */
const flagText = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`);

/**
 * Refuses any flag a command does not take, naming the nearest one it does: a mistyped flag must
 * never be dropped and the command run as if it were not there. `what` is the command as typed
 * (`freeze`), `takes` says what it takes instead.
 */
export function refuseUnknownFlags(
  flags: Record<string, unknown>,
  allowed: readonly string[],
  what: string,
  usage: string,
  takes?: string,
): void {
  const unknown = Object.keys(flags).filter((name) => !allowed.includes(name));
  if (!unknown.length) return;
  const typed = flagText(unknown[0]!);
  const closest = typed.startsWith('--') ? closestWord(typed, allowed.map(flagText)) : undefined;
  const hint = closest ? ` Did you mean \`${closest}\`?` : '';
  const instead = takes ? `: it takes ${takes}.` : '.';
  throw new UserInputError(`\`${escapeMrkdwn(typed)}\` is not an option of \`${what}\`${instead}${hint}`, usage);
}
