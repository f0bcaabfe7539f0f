import { z } from 'zod';
import { subcommand, type Subcommand } from './command.ts';
import { contract } from './contract.ts';
import { helpOverview, helpPage, noSuchSubcommandText } from '../views/help.ts';
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
      const cmd = deps.command;
      const wanted = words.subcommand?.toLowerCase();
      if (!wanted) return { kind: 'message', message: helpOverview(all(), cmd) };
      const sub = all().find((s) => s.name === wanted);
      if (!sub) throw new UserInputError(noSuchSubcommandText(wanted, cmd));
      return { kind: 'message', message: helpPage(sub, cmd) };
    },
  });
}
