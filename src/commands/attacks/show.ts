import { NoIntegrationError, NotFoundError } from '../../client/errors.ts';
import { attackSchema, type Attack, type ScopedPlatform } from '../../client/index.ts';
import type { Services } from '../../services.ts';
import { parseAttackRef } from '../../views/attacks/attackCard.ts';
import { attackDetailsMessage, type TicketCount } from '../../views/attacks/attackDetails.ts';
import { errorInBrief } from '../../views/errorReply.ts';
import { type Action, type Reply, subcommand } from '../command.ts';
import { contract } from '../contract.ts';
import { explained, UserInputError } from '../../errors.ts';
import type { Actor } from '../../store/sessions.ts';
import { teamName } from '../../attacks/access.ts';
import { attackIdWord } from '../arguments.ts';

const usage = 'show <attack id>';

export async function showAttack(deps: Services, actor: Actor, id: string, teamId?: string): Promise<Reply> {
  const login = await deps.login.require(actor);
  const { guid, team } = await deps.attacks.locate(login, id, { teamId });
  const api = deps.attacks.api(login, team);
  const context = { team: teamName(team), doing: 'show the attack', subject: `attack ${guid}` };
  const attack: Attack = await explained(context, async () => {
    try {
      return await api.attacks.get(guid);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // A Kubernetes attack has no TaskResponse; show what its own record says in that shape.
      const k8s = await api.kubernetes.get(guid);
      const cli = k8s.impact_definition?.cli_args ?? [];
      return attackSchema.parse({
        guid: k8s.guid,
        stage: k8s.stage,
        stage_lifecycle: k8s.stage_lifecycle,
        args: cli.slice(1),
        infra_command: { type: cli[0] ?? 'kubernetes', args: cli.slice(1) },
        target_type: 'Kubernetes',
        targets: (k8s.target_definition?.strategy?.k8s_objects ?? []).map((o) =>
          [o.cluster_id, o.namespace, o.kind, o.name].filter(Boolean).join('/'),
        ),
        created_at: k8s.created_at,
        end_time: k8s.end_time,
      });
    }
  });
  const [executions, tickets, card] = await Promise.all([
    attack.target_type === 'Kubernetes' ? [] : explained(context, () => api.attacks.executions(guid)),
    ticketCount(deps, api, guid, teamName(team)),
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
async function ticketCount(deps: Services, api: ScopedPlatform, guid: string, team: string): Promise<TicketCount> {
  try {
    return { count: await api.tracker.count([guid]) };
  } catch (error) {
    if (error instanceof NoIntegrationError) return { noIntegration: true };
    deps.logger.warn({ err: error, attack: guid }, 'could not count the tickets of an attack');
    return { problem: errorInBrief(error, { team }) };
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
