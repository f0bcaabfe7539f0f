import { z } from 'zod';
import { subcommand, type Subcommand } from './command.ts';
import { contract } from './contract.ts';
import { context, escapeMrkdwn, section } from '../views/blocks.ts';
import { UserInputError } from '../errors.ts';
import type { Reply } from './reply.ts';

/** `help` needs the full list, which includes itself; the registry passes it in. */
export function helpCommand(all: () => Subcommand[]): Subcommand {
  return subcommand({
    name: 'help',
    usage: 'help [subcommand]',
    summary: 'Lists what Faultline can do, or explains one subcommand with examples.',
    examples: ['help', 'help team'],
    args: contract({ command: 'help', usage: 'help [subcommand]', words: { subcommand: z.string().optional() } }),
    async run(_request, { words }, deps): Promise<Reply> {
      const cmd = deps.config.slack.command;
      const wanted = words.subcommand?.toLowerCase();
      if (wanted) {
        const sub = all().find((s) => s.name === wanted);
        if (!sub)
          throw new UserInputError(`There is no subcommand “${escapeMrkdwn(wanted)}”. \`${cmd} help\` lists them all.`);
        const text = `${cmd} ${sub.usage}: ${sub.summary}`;
        return {
          kind: 'message',
          message: {
            text,
            blocks: [
              section(`*\`${cmd} ${sub.usage}\`*\n${sub.summary}`),
              section(`*Examples*\n${sub.examples.map((e) => `\`${cmd} ${e}\``).join('\n')}`),
            ],
          },
        };
      }
      const lines = all().map((s) => `\`${cmd} ${s.usage}\`\n${s.summary}`);
      return {
        kind: 'message',
        message: {
          text: `Faultline: ${all()
            .map((s) => s.name)
            .join(', ')}. Try ${cmd} help <subcommand>.`,
          blocks: [
            section(
              '*Faultline* runs failure-injection attacks from Slack. Replies like this one are only visible to you.',
            ),
            section(lines.join('\n\n')),
            context(`\`${cmd} help <subcommand>\` shows examples. Start with \`${cmd} login\`.`),
          ],
        },
      };
    },
  });
}
