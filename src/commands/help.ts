import type { Subcommand } from './command.ts';
import { context, escapeMrkdwn, section } from '../views/blocks.ts';
import { UserInputError } from '../errors.ts';
import type { Reply } from './contract.ts';

/** `help` needs the full list, which includes itself; the registry passes it in. */
export function helpCommand(all: () => Subcommand[]): Subcommand {
  const command: Subcommand = {
    name: 'help',
    usage: 'help [subcommand]',
    summary: 'Lists what Faultline can do, or explains one subcommand with examples.',
    examples: ['help', 'help team'],
    async run(request, deps): Promise<Reply> {
      const cmd = deps.config.slack.command;
      const wanted = request.words[0]?.toLowerCase();
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
  };
  return command;
}
