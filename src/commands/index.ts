import {
  type CommandRequest,
  type CommandRun,
  type Subcommand,
  splitWords,
  subcommand,
  type Entry,
} from './command.ts';
import { UserInputError } from '../errors.ts';
import { contract } from './contract.ts';
import { helpOverview, helpPage, noSuchSubcommandText } from '../views/help.ts';
import { z } from 'zod';
import { loginCommand } from './login/login.ts';
import { logoutCommand, ssoCommand, teamCommand, whoamiCommand } from './login/session.ts';
import { attackCommand } from './attacks/attack.ts';
import { listCommand } from './attacks/list.ts';
import { showCommand } from './attacks/show.ts';
import { haltCommand } from './attacks/halt.ts';
import { haltsCommand } from './attacks/halts.ts';
import { noteCommand } from './attacks/note.ts';
import { ticketCommand, ticketsCommand } from './tickets/ticket.ts';
import { gamedayCommand } from './gamedays/gameday.ts';
import { freezeCommand, unfreezeCommand } from './guardrails/freeze.ts';
import { statusCommand } from './status.ts';
import { unwatchCommand, watchCommand } from './attacks/watch.ts';
import { runCommand as runSavedCommand, saveCommand, savedCommand } from './attacks/saved.ts';
import type { Actor } from '../store/sessions.ts';
import { escapeMrkdwn } from '../views/blocks.ts';
import { closestWord } from '../suggest.ts';

const closestSubcommand = (word: string) =>
  closestWord(
    word,
    subcommands.map((s) => s.name),
  );

const helpUsage = 'help [subcommand]';

/** `help` lists every subcommand, itself included. */
const helpCommand: Subcommand = subcommand({
  name: 'help',
  usage: helpUsage,
  summary: 'Lists what Faultline can do, or explains one subcommand with examples.',
  examples: ['help', 'help team'],
  args: contract({ command: 'help', usage: helpUsage, words: { subcommand: z.string().optional() } }),
  async run(_request, { words }, deps) {
    const cmd = deps.command;
    const wanted = words.subcommand?.toLowerCase();
    if (!wanted) return { kind: 'message', message: helpOverview(subcommands, cmd) };
    const sub = subcommands.find((s) => s.name === wanted);
    if (!sub) throw new UserInputError(noSuchSubcommandText(wanted, cmd, closestSubcommand(wanted)), helpUsage);
    return { kind: 'message', message: helpPage(sub, cmd) };
  },
});

export const subcommands: Subcommand[] = [
  helpCommand,
  loginCommand,
  logoutCommand,
  whoamiCommand,
  teamCommand,
  attackCommand,
  saveCommand,
  savedCommand,
  runSavedCommand,
  listCommand,
  showCommand,
  haltCommand,
  haltsCommand,
  noteCommand,
  ticketCommand,
  ticketsCommand,
  gamedayCommand,
  statusCommand,
  freezeCommand,
  unfreezeCommand,
  watchCommand,
  unwatchCommand,
  ssoCommand,
];

/** Slack turns straight quotes into curly ones as people type; the parser needs straight ones. */
export function straightenQuotes(text: string): string {
  return text.replace(/[\u201C\u201D\u201E\u201F\u2033]/g, '"').replace(/[\u2018\u2019\u201A\u201B\u2032]/g, "'");
}

/**
 * Splits `/chaos <text>` into the subcommand and its words. The text is split into words once,
 * by the same tokenizer the attack parser uses (every kind of space parts words, quotes group
 * them); each subcommand's contract reads its flags from those words rather than splitting the
 * text again, so no two readers of one command can disagree on where a word ends.
 */
export function parseCommandText(text: string, actor: Actor): { name: string; request: CommandRequest } {
  const cleaned = straightenQuotes(text);
  const { words: all, firstWordEnd, unclosedQuote } = splitWords(cleaned);
  const name = (all[0] ?? 'help').toLowerCase();
  const rest = all.length ? cleaned.slice(firstWordEnd).trim() : '';
  return {
    name,
    request: { actor, tokens: all.slice(1), ...(unclosedQuote ? { unclosedQuote } : {}), rest },
  };
}

/** The subcommand the text names, read through its contract; an unknown one gets the closest name and the list. */
export function commandEntry(text: string, actor: Actor, responseUrl: string | undefined): Entry<CommandRun> {
  const { name, request } = parseCommandText(text, actor);
  request.responseUrl = responseUrl;
  const sub = subcommands.find((s) => s.name === name);
  if (sub) return sub.take(request);
  return async (deps) => {
    const cmd = deps.command;
    const closest = closestSubcommand(name);
    const hint = closest ? ` Did you mean \`${cmd} ${closest}\`?` : '';
    throw new UserInputError(
      `“${escapeMrkdwn(name)}” is not a Faultline subcommand.${hint} \`${cmd} help\` lists them all.`,
    );
  };
}
