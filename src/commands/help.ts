import { z } from 'zod';
import { subcommand, type Subcommand } from './command.ts';
import { contract } from './contract.ts';
import { helpOverview, helpPage, noSuchSubcommandText } from '../views/help.ts';
import { UserInputError } from '../errors.ts';
import type { Reply } from './reply.ts';
import { closestWord } from '../suggest.ts';

const usage = 'help [subcommand]';

/** `help` needs the full list, which includes itself; the registry passes it in. */
export function helpCommand(all: () => Subcommand[]): Subcommand {
  return subcommand({
    name: 'help',
    usage,
    summary: 'Lists what Faultline can do, or explains one subcommand with examples.',
    examples: ['help', 'help team'],
    args: contract({ command: 'help', usage, words: { subcommand: z.string().optional() } }),
    async run(_request, { words }, deps): Promise<Reply> {
      const cmd = deps.command;
      const wanted = words.subcommand?.toLowerCase();
      if (!wanted) return { kind: 'message', message: helpOverview(all(), cmd) };
      const sub = all().find((s) => s.name === wanted);
      if (!sub) {
        const closest = closestWord(
          wanted,
          all().map((s) => s.name),
        );
        throw new UserInputError(noSuchSubcommandText(wanted, cmd, closest), usage);
      }
      return { kind: 'message', message: helpPage(sub, cmd) };
    },
  });
}
