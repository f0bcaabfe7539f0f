import type { KnownBlock } from '@slack/types';
import { isPathId } from '../../client/index.ts';
import { type ChangedSince, savedNamePattern, type SavedAttack } from '../../attacks/saved.ts';
import {
  actions,
  button,
  buttonObject,
  confirmDialog,
  context,
  escapeMrkdwn,
  section,
  slackDate,
  plural,
} from '../blocks.ts';
import { codeSpan, commandWords } from './attackPreview.ts';
import type { Message } from '../message.ts';

export const SAVED_RUN = 'saved_run';
export const SAVED_DELETE = 'saved_delete';

/** How many saved attacks one list message shows (two blocks each, within Slack's 50). */
const shownAtMost = 20;

/** The saved attack a Run or Delete button names: its team, its name, and the version the list showed. */
export interface SavedRef {
  teamId: string;
  name: string;
  /** Missing on a button of a list shown before versions were counted. */
  version?: number | undefined;
}

export function savedRefValue(ref: SavedRef): string {
  return JSON.stringify({ t: ref.teamId, n: ref.name, ...(ref.version !== undefined ? { v: ref.version } : {}) });
}

/** The saved attack a button value names, or undefined unless it holds a team id and a name one could save. */
export function parseSavedRef(value: string | undefined): SavedRef | undefined {
  const { t, n, v } = buttonObject(value) ?? {};
  if (!isPathId(t) || typeof n !== 'string' || !savedNamePattern.test(n)) return undefined;
  if (v !== undefined && !(Number.isSafeInteger(v) && (v as number) >= 0)) return undefined;
  return { teamId: t, name: n, ...(v !== undefined ? { version: v as number } : {}) };
}

/** A saved attack's words as a person would type them after the slash command. */
export const savedAttackText = (saved: Pick<SavedAttack, 'words'>) => `attack ${commandWords(saved.words)}`;

const nameRule = (name: string) =>
  `“${name}” cannot name a saved attack: use up to 40 letters, digits, “-”, “_” or “.”, starting with a letter or a digit.`;

const bold = (text: string) => `*${escapeMrkdwn(text)}*`;

/** Who may save, replace and delete a team's saved attacks. */
const changeRule = (teamName: string) =>
  `Saving, replacing and deleting the saved attacks of team ${teamName} needs the EXPERIMENTS_RUN privilege there, which your platform login lacks`;

/** Who last changed a saved attack, when, and what it now runs. */
const changeOf = (saved: SavedAttack) =>
  `was changed by <@${saved.changedBy.userId}> ${slackDate(new Date(saved.changedAt))}`;

export const savedAttackWords = {
  saved: (saved: Pick<SavedAttack, 'name' | 'words'>, teamName: string, command: string) =>
    `:floppy_disk: Saved ${bold(saved.name)} for team ${bold(teamName)}: ${codeSpan(savedAttackText(saved))}. ${codeSpan(`${command} run ${saved.name}`)} previews and starts it; ${codeSpan(`${command} saved`)} lists the team's saved attacks.`,
  exists: (name: string, teamName: string, command: string) =>
    `Team ${bold(teamName)} already has a saved attack named ${bold(name)}. Choose another name, or delete that one from ${codeSpan(`${command} saved`)} first.`,
  busy: (name: string) =>
    `Someone is saving an attack named ${bold(name)} at this very moment. Try again in a few seconds.`,
  /** The same, on the builder's Save as field (plain text). */
  refusedField: (refused: 'exists' | 'busy' | 'not allowed', name: string, teamName: string) =>
    refused === 'exists'
      ? `The team already has a saved attack named ${name}. Choose another name.`
      : refused === 'not allowed'
        ? `${changeRule(teamName)}. Nothing was saved: clear Save as to preview the attack only.`
        : `Someone is saving an attack named ${name} at this very moment. Try again in a few seconds.`,
  /** Why a name cannot name a saved attack; for a field of the builder too, so plain. */
  badName: (name: string) => nameRule(escapeMrkdwn(name)),
  /** The same, on the builder's Save as field (plain text). */
  badNameField: (name: string) => nameRule(name),
  noName: 'Name the attack to save, then give it as you would after `attack`: `save checkout-cpu cpu -l 60 -c 1`.',
  noSpec: (name: string) =>
    `Give the attack to save after its name, as you would after \`attack\`: \`save ${escapeMrkdwn(name)} cpu -l 60 -c 1\`.`,
  yesNotSaved: (command: string) =>
    `\`--yes\` belongs to the run, not to what is saved: save the attack without it, then start it with ${codeSpan(`${command} run <name> --yes`)}.`,
  noRunName: (command: string) =>
    `Name the saved attack to run: ${codeSpan(`${command} saved`)} lists the team's saved attacks.`,
  notFound: (name: string, teamName: string, closest: string | undefined, command: string) =>
    `Team ${bold(teamName)} has no saved attack named ${bold(name)}.${closest ? ` Did you mean ${bold(closest)}?` : ''} ${codeSpan(`${command} saved`)} lists them.`,
  /** A saved attack the team's attack types no longer take: nothing was sent. */
  stale: (name: string, teamName: string, problem: string, command: string) =>
    `:warning: Saved attack ${bold(name)} no longer passes the checks of team ${bold(teamName)}'s attack types, so nothing was sent: ${problem} Save the attack again as it should be now (under a new name, or after deleting this one from ${codeSpan(`${command} saved`)}).`,
  deleted: (name: string, teamName: string) => `Deleted saved attack ${bold(name)} of team ${bold(teamName)}.`,
  alreadyDeleted: (name: string, teamName: string) =>
    `Team ${bold(teamName)} has no saved attack named ${bold(name)} any more: someone deleted it.`,
  /** A save or delete by someone without the run privilege on the team: nothing changed. */
  mayNotChange: (teamName: string) =>
    `${changeRule(bold(teamName))}. Nothing was changed. Ask someone who runs attacks in the team, or an owner of the team for a role with EXPERIMENTS_RUN.`,
  /**
   * A saved attack changed since the person (or the list, or the plan step) saw it: nothing was
   * started, the change is named, and what to do next is said.
   */
  changed: (saved: SavedAttack, teamName: string, since: ChangedSince, command: string) => {
    const what = `Saved attack ${bold(saved.name)} of team ${bold(teamName)} ${changeOf(saved)}`;
    const runs = `it now runs ${codeSpan(savedAttackText(saved))}`;
    const look = codeSpan(`${command} run ${saved.name}`);
    if (since.kind === 'list')
      return `:warning: ${what} after this list was shown: ${runs}. Nothing was previewed. The list below shows it as it is now: press Run again to see its preview.`;
    if (since.kind === 'step')
      return `:warning: ${what} after step ${since.position} was planned with it: ${runs}. Nothing was started. See it with ${look}; to run it as it is now, remove step ${since.position} and add it again.`;
    return `:warning: ${what}, and you have not seen that version: ${runs}. Nothing was started. Run ${look} without \`--yes\` to see it first; after that, \`--yes\` and the Run saved attack workflow step start it.`;
  },
  staleButton: 'That button no longer names a saved attack. Run the saved command again.',
  notYourTeam: 'That saved attack belongs to a team you are not in. Choose one of your teams with the team command.',
};

/** Who saved it and when, and who changed it since, if anyone did. */
function savedLine(saved: SavedAttack): string {
  const line = `Saved by <@${saved.savedBy.userId}> ${slackDate(new Date(saved.savedAt))}`;
  return saved.changedAt === saved.savedAt
    ? line
    : `${line}, changed by <@${saved.changedBy.userId}> ${slackDate(new Date(saved.changedAt))}`;
}

/** Whether a name may name a saved attack; the builder checks its Save as field with it. */
export function savedNameProblem(name: string): string | undefined {
  return savedNamePattern.test(name) ? undefined : savedAttackWords.badNameField(name);
}

/** A team's saved attacks, each with Run and Delete; `notice` goes above them (what was just done). */
export function savedAttacksMessage(p: {
  teamId: string;
  teamName: string;
  saved: readonly SavedAttack[];
  command: string;
  notice?: string | undefined;
}): Message {
  const head = p.notice ? [section(p.notice)] : [];
  if (!p.saved.length) {
    const text = `Team ${bold(p.teamName)} has no saved attacks. Save one with ${codeSpan(`${p.command} save <name> <attack>`)}, such as ${codeSpan(`${p.command} save web-cpu cpu -l 60 -c 1 --target-tags role=web`)}, or with Save as in the attack builder.`;
    return { text, blocks: [...head, section(text)] };
  }
  const shown = p.saved.slice(0, shownAtMost);
  const blocks: KnownBlock[] = [
    ...head,
    section(`*Saved attacks of team ${escapeMrkdwn(p.teamName)}* (${plural(p.saved.length, 'attack')})`),
  ];
  for (const saved of shown) {
    const ref = savedRefValue({ teamId: p.teamId, name: saved.name, version: saved.version });
    blocks.push(
      section(`${bold(saved.name)}  ${codeSpan(savedAttackText(saved))}\n${savedLine(saved)}`),
      actions(`saved_actions:${saved.name.toLowerCase()}`, [
        button('Run', SAVED_RUN, { value: ref, style: 'primary' }),
        button('Delete', SAVED_DELETE, {
          value: ref,
          style: 'danger',
          confirm: confirmDialog(
            'Delete saved attack?',
            `Delete ${bold(saved.name)} for everyone in team ${bold(p.teamName)}?`,
            'Delete',
            { deny: 'Keep it', danger: true },
          ),
        }),
      ]),
    );
  }
  if (p.saved.length > shown.length)
    blocks.push(
      context(
        `${plural(p.saved.length - shown.length, 'more saved attack')} not shown: run them by name with ${codeSpan(`${p.command} run <name>`)}.`,
      ),
    );
  blocks.push(context(`Run shows the preview first; ${codeSpan(`${p.command} run <name> --yes`)} starts at once.`));
  return {
    text: escapeMrkdwn(`Saved attacks of team ${p.teamName}: ${p.saved.map((s) => s.name).join(', ')}`),
    blocks,
  };
}
