import { NoIntegrationError } from '../../client/errors.ts';
import type { Services } from '../../services.ts';
import { parseAttackRef } from '../../views/attacks/attackCard.ts';
import { attackDetailsMessage, type TicketCount } from '../../views/attacks/attackDetails.ts';
import { errorInBrief } from '../../views/errorReply.ts';
import { type Action, type Reply, subcommand } from '../command.ts';
import { contract } from '../contract.ts';
import { explained, UserInputError } from '../../errors.ts';
import type { Actor, Login } from '../../store/sessions.ts';
import type { TeamEntry } from '../../client/index.ts';
import { teamName } from '../../attacks/access.ts';
import { attackIdWord } from '../arguments.ts';

const usage = 'show <attack id>';

export async function showAttack(deps: Services, actor: Actor, id: string, teamId?: string): Promise<Reply> {
  const login = await deps.login.require(actor);
  const { guid, team } = await deps.attacks.locate(login, id, { teamId });
  const context = { team: teamName(team), doing: 'show the attack', subject: `attack ${guid}` };
  const attack = await explained(context, () => deps.attacks.attack(login, team, guid));
  const [executions, tickets, card] = await Promise.all([
    attack.target_type === 'Kubernetes' ? [] : explained(context, () => deps.attacks.executions(login, team, guid)),
    ticketCount(deps, login, team, guid),
    deps.attacks.cards.get(guid),
  ]);
  return {
    kind: 'message',
    message: attackDetailsMessage(
      attack,
      executions,
      { id: team.identifier, name: teamName(team) },
      deps.appUrl,
      tickets,
      card?.haltCheck,
    ),
  };
}

/** How many tickets the attack has; a team without a tracker, or a failed count, is said in a line, never an error. */
async function ticketCount(deps: Services, login: Login, team: TeamEntry, guid: string): Promise<TicketCount> {
  try {
    return { count: await deps.attacks.ticketCount(login, team, guid) };
  } catch (error) {
    if (error instanceof NoIntegrationError) return { noIntegration: true };
    deps.logger.warn({ err: error, attack: guid }, 'could not count the tickets of an attack');
    return { problem: errorInBrief(error, { team: teamName(team) }) };
  }
}

export const showCommand = subcommand({
  name: 'show',
  usage,
  summary: 'Shows one attack with its executions, one per target.',
  examples: ['show 6f1c2d3e-aaaa-bbbb-cccc-1234567890ab'],
  args: contract({ command: 'show', usage, words: { id: attackIdWord } }),
  async run(request, { words }, deps) {
    return showAttack(deps, request.actor, words.id);
  },
});

export async function showFromButton(action: Action, deps: Services): Promise<Reply> {
  const ref = parseAttackRef(action.value);
  if (!ref) throw new UserInputError('That button no longer points at an attack.');
  return showAttack(deps, action.actor, ref.guid, ref.teamId);
}
