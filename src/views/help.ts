import { context, escapeMrkdwn, section } from './blocks.ts';
import type { Message } from './message.ts';

/** What help says of a subcommand: how it is typed, what it does, and examples. */
export interface HelpEntry {
  name: string;
  usage: string;
  summary: string;
  examples: string[];
}

/**
 * `help`: every subcommand, one section each, so no text nears Slack's 3,000 characters and none
 * is cut; each names its own page.
 */
export function helpOverview(entries: readonly HelpEntry[], command: string): Message {
  return {
    text: `Faultline: ${entries.map((entry) => entry.name).join(', ')}. Try ${command} help <subcommand>.`,
    blocks: [
      section('*Faultline* runs failure-injection attacks from Slack. Replies like this one are only visible to you.'),
      ...entries.map((entry) => section(`\`${command} ${entry.usage}\`\n${entry.summary}`)),
      context(`\`${command} help <subcommand>\` shows its examples. Start with \`${command} login\`.`),
    ],
  };
}

/** `help <subcommand>`: its usage, what it does and its examples. */
export function helpPage(entry: HelpEntry, command: string): Message {
  return {
    text: `${command} ${entry.usage}: ${entry.summary}`,
    blocks: [
      section(`*\`${command} ${entry.usage}\`*\n${entry.summary}`),
      section(`*Examples*\n${entry.examples.map((example) => `\`${command} ${example}\``).join('\n')}`),
      context(`\`${command} help\` lists every subcommand.`),
    ],
  };
}

export const noSuchSubcommandText = (wanted: string, command: string, closest?: string) =>
  `There is no subcommand “${escapeMrkdwn(wanted)}”.${closest ? ` Did you mean \`${command} help ${closest}\`?` : ''} \`${command} help\` lists them all.`;
