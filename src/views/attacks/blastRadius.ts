import type { BlastRadius, NoTargetsError, TargetSet, TargetsDriftedError } from '../../attacks/blastRadius.ts';
import { escapeMrkdwn, plural } from '../blocks.ts';

/** How many names a preview or a refusal lists before "and N more". */
const shownNames = 10;

export const noun = (set: Pick<TargetSet, 'kind'>) => (set.kind === 'Host' ? 'host' : 'container');

/** Names, the first ten of them, then how many more. */
function names(list: readonly string[]): string {
  const shown = list.slice(0, shownNames).map(escapeMrkdwn).join(', ');
  return list.length > shownNames ? `${shown} and ${list.length - shownNames} more` : shown;
}

/** "2 of 14 hosts": how many of the team's active clients of that kind. */
export const ofTeam = (count: number, set: TargetSet) => `${count} of ${plural(set.outOf, noun(set))}`;

/** A random count's target hits only some of what it matches. */
const pickedAtRandom = (set: TargetSet) => set.count !== undefined && set.hits < set.matches.length;

/** The set in one line, as a rehearsal tells it: "2 of 14 hosts: platform-web-1, platform-web-2". */
export function blastRadiusLine(set: TargetSet): string {
  const random = pickedAtRandom(set) ? `, ${set.hits} of them picked at random` : '';
  return `${ofTeam(set.matches.length, set)}: ${names(set.matches)}${random}`;
}

/** The preview's blast radius: what the target matches now among the team's active clients. */
export function blastRadiusText(blast: BlastRadius, teamName: string): string {
  if (blast.kind === 'service')
    return '*Blast radius:* the platform resolves a service to its targets when the attack is created; it does not list them before.';
  if (blast.kind === 'kubernetes')
    return '*Blast radius:* the objects named above; the platform picks among them when the attack is created.';
  const every = blast.matches.length === blast.outOf;
  const random = pickedAtRandom(blast) ? ` The platform picks ${blast.hits} of them at random.` : '';
  const head = every
    ? `:warning: *It matches every active ${noun(blast)} of team ${escapeMrkdwn(teamName)}: ${ofTeam(blast.matches.length, blast)}.*`
    : `*Blast radius: ${ofTeam(blast.matches.length, blast)}*`;
  const missing = blast.missing?.length
    ? `\n:warning: Not an active ${noun(blast)} of the team, so not hit: ${blast.missing
        .map(({ name, near }) => `${escapeMrkdwn(name)}${near ? ` (did you mean ${escapeMrkdwn(near)}?)` : ''}`)
        .join(', ')}.`
    : '';
  return `${head}${random}\n${names(blast.matches)}${missing}`;
}

/** A target that matches no active client, under the builder's target field: plain text, the form kept to fix it in place. */
export function noTargetsFieldText(error: NoTargetsError): string {
  const { set, suggestions } = error;
  const hint = suggestions.length ? ` Did you mean ${suggestions.join(' or ')}?` : '';
  return `No active ${noun(set)} of team ${error.teamName} matches this.${hint}`;
}

/** A start refused because its target hits more, or other, clients than were previewed or approved. */
export function targetsDriftedText({ since, was, now, added, removed }: TargetsDriftedError): string {
  const when = since === 'approval' ? 'since it was approved' : 'since the preview';
  const change =
    now.count !== undefined
      ? `It now hits ${plural(now.hits, noun(now))}, not ${was.hits} (${plural(now.matches.length, noun(now))} match, the count is ${now.count}).`
      : `It now matches ${plural(now.matches.length, noun(now))}, not ${was.matches.length}.${added.length ? ` New: ${names(added)}.` : ''}${removed.length ? ` Gone: ${names(removed)}.` : ''}`;
  const next =
    since === 'approval'
      ? `The approval covers the ${plural(was.hits, noun(was))} it was for, not more: ask again for the new set.`
      : 'Run the command again to preview the new set.';
  return `:no_entry: The target changed ${when}. ${change} Nothing was started. ${next}`;
}
