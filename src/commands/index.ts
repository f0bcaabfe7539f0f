import parse from 'yargs-parser';
import type { Deps } from '../deps.ts';
import type { CommandRequest, Subcommand } from './command.ts';
import { UserInputError } from '../errors.ts';
import { helpCommand } from './help.ts';
import { loginCommand } from './login.ts';
import { logoutCommand } from './logout.ts';
import { teamCommand } from './team.ts';
import { whoamiCommand } from './whoami.ts';
import { attackCommand } from './attack/index.ts';
import { listCommand } from './list.ts';
import { showCommand } from './show.ts';
import { haltCommand } from './halt.ts';
import { noteCommand } from './note.ts';
import { ticketCommand, ticketsCommand } from './ticket.ts';
import { gamedayCommand } from './gameday.ts';
import { freezeCommand, unfreezeCommand } from './freeze.ts';
import { statusCommand } from './status.ts';
import type { Actor } from '../store/sessions.ts';
import type { Reply } from '../slack/interaction.ts';
import { escapeMrkdwn } from '../views/blocks.ts';

export const subcommands: Subcommand[] = [];
subcommands.push(
  helpCommand(() => subcommands),
  loginCommand,
  logoutCommand,
  whoamiCommand,
  teamCommand,
  attackCommand,
  listCommand,
  showCommand,
  haltCommand,
  noteCommand,
  ticketCommand,
  ticketsCommand,
  gamedayCommand,
  statusCommand,
  freezeCommand,
  unfreezeCommand,
);

/** Slack turns straight quotes into curly ones as people type; the parser needs straight ones. */
export function straightenQuotes(text: string): string {
  return text.replace(/[\u201C\u201D\u201E\u201F\u2033]/g, '"').replace(/[\u2018\u2019\u201A\u201B\u2032]/g, "'");
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** Splits `/chaos <text>` into the subcommand and its parsed arguments. */
export function parseCommandText(text: string, actor: Actor): { name: string; request: CommandRequest } {
  const cleaned = straightenQuotes(text).trim();
  const match = /^(\S+)\s*([\s\S]*)$/.exec(cleaned);
  const name = (match?.[1] ?? 'help').toLowerCase();
  const rest = match?.[2] ?? '';
  const argv = parse(rest, {
    configuration: { 'camel-case-expansion': false, 'parse-numbers': false, 'parse-positional-numbers': false, 'dot-notation': false, 'boolean-negation': false },
  });
  const { _: words, ...flags } = argv;
  return { name, request: { actor, words: words.map(String), flags, rest } };
}

/** Runs the subcommand the text names; an unknown one gets the closest name and the list. */
export async function runCommand(text: string, actor: Actor, deps: Deps, delivery: { responseUrl?: string | undefined; triggerId?: string | undefined } = {}): Promise<Reply> {
  const { name, request } = parseCommandText(text, actor);
  request.responseUrl = delivery.responseUrl;
  request.triggerId = delivery.triggerId;
  const sub = subcommands.find((s) => s.name === name);
  if (!sub) {
    const cmd = deps.config.slack.command;
    const closest = subcommands.map((s) => ({ s, d: editDistance(name, s.name) })).sort((x, y) => x.d - y.d)[0];
    const hint = closest && closest.d <= 2 ? ` Did you mean \`${cmd} ${closest.s.name}\`?` : '';
    throw new UserInputError(`“${escapeMrkdwn(name)}” is not a Faultline subcommand.${hint} \`${cmd} help\` lists them all.`);
  }
  return sub.run(request, deps);
}
