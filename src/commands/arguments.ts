import type { TeamEntry } from '../client/index.ts';
import { teamName } from '../attacks/access.ts';
import { UserInputError } from '../errors.ts';
import { escapeMrkdwn } from '../views/blocks.ts';
import { z } from 'zod';
import { closestWord } from '../suggest.ts';

/** How a team is named, shown when none of a person's teams matches. */
export const teamUsage = 'team [name or id]';

const guidPattern = /^[0-9a-zA-Z][0-9a-zA-Z-]{7,63}$/;

/** An attack id as a command's word: missing, or not shaped like one, it says what an id looks like. */
export const attackIdWord = z
  .string({ error: 'Which attack? Give its id, or its first 8 characters (it is on the attack card and in `list`).' })
  .regex(guidPattern, {
    error: (issue) =>
      `“${escapeMrkdwn(String(issue.input))}” is not an attack id: give the whole id, or its first 8 characters or more.`,
  });

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
  const closest = closestWord(q, teams.map(teamName));
  const hint = closest ? ` Did you mean *${escapeMrkdwn(closest)}*?` : '';
  throw new UserInputError(
    `None of your teams matches “${escapeMrkdwn(query)}”.${hint} Your teams: ${names(teams)}.`,
    usage,
  );
}
