import { teamName } from '../../attacks/access.ts';
import { haltReceiptsMessage } from '../../views/attacks/haltReceipts.ts';
import { subcommand } from '../command.ts';
import { contract, flag } from '../contract.ts';
import { resolveTeam } from './attack.ts';

const usage = 'halts [--team <name>]';

/** Halts listed at once: the latest. */
const shown = 10;

export const haltsCommand = subcommand({
  name: 'halts',
  usage,
  summary:
    "Lists the team's last verified halts: when each was sent and accepted, and how long its targets took to stop (median and slowest).",
  examples: ['halts', 'halts --team Platform'],
  args: contract({ command: 'halts', usage, flags: { team: flag.value('a team name or id') } }),
  async run(request, args, deps) {
    const login = await deps.login.require(request.actor);
    const team = resolveTeam(login, args.flags.team, usage);
    const receipts = await deps.attacks.lastHalts([team.identifier], shown);
    return { kind: 'message', message: haltReceiptsMessage(teamName(team), receipts) };
  },
});
