import { z } from 'zod';
import { haltAllAttacks, haltAttack, haltEverything, type HaltOutcome, type MassHaltOutcome } from '../attacks/halt.ts';
import type { Deps } from '../deps.ts';
import { parseAttackRef, stageWords } from '../views/attackCard.ts';
import { haltAllPrompt, type HaltScope } from '../views/halt.ts';
import { type Action, message, type Reply } from './reply.ts';
import { subcommand } from './command.ts';
import { contract, flag, forms } from './contract.ts';
import { explained, UserInputError } from '../errors.ts';
import { attackIdWord } from './arguments.ts';
import type { Actor } from '../store/sessions.ts';
import { platformFor, requireLogin } from '../attacks/access.ts';
import { redrawListAfterHalt } from './list.ts';
import { plural } from '../views/plural.ts';

const usage = 'halt <attack id> [--reason text] | halt all | halt everything';
/** What a halt did, in words: stopped, already ended (with its outcome), already halting, or unconfirmed. */
function haltedText(actor: Actor, outcome: HaltOutcome, cmd: string): string {
  const what = `${outcome.kind === 'kubernetes' ? 'Kubernetes attack' : 'Attack'} \`${outcome.guid}\``;
  const stage = outcome.state?.stage ? stageWords(outcome.state.stage) : undefined;
  if (outcome.result === 'ended')
    return `:information_source: ${what} had already ended${stage ? ` (${stage})` : ''}, so there was nothing to halt.`;
  if (outcome.result === 'unconfirmed')
    return `:warning: The halt of ${outcome.kind === 'kubernetes' ? 'Kubernetes attack' : 'attack'} \`${outcome.guid}\` was sent, but Faultline could not confirm it: the platform did not list it among the attacks it stopped, and cannot show it now. Check \`${cmd} show ${outcome.guid}\` or the web UI, and halt again if it still runs.`;
  if (outcome.result === 'halting')
    return `:octagonal_sign: ${what} is already being halted${outcome.card ? '; its card shows the progress' : ''}.`;
  const where = outcome.card ? ` Its card shows the progress.` : '';
  return `:octagonal_sign: Halt requested for ${outcome.kind === 'kubernetes' ? 'Kubernetes ' : ''}attack \`${outcome.guid}\` by <@${actor.userId}>.${where}`;
}

/** How many attacks `halt all` stopped and how many had already ended, naming the first of those. */
function massHaltText(actor: Actor, outcome: MassHaltOutcome): string {
  const halted = outcome.halted.length;
  const kubernetes = outcome.halted.filter((a) => a.kind === 'kubernetes').length;
  const parts = [
    halted
      ? `:octagonal_sign: <@${actor.userId}> halted ${plural(halted, 'attack')}${kubernetes ? ` (${kubernetes} Kubernetes)` : ''}.`
      : ':information_source: There was no active attack to halt.',
  ];
  const ended = outcome.ended.length;
  if (ended) {
    const named = outcome.ended
      .slice(0, 5)
      .map((a) => `\`${a.guid.slice(0, 8)}\` (${stageWords(a.stage)})`)
      .join(', ');
    parts.push(`${ended} had already ended: ${named}${ended > 5 ? ` and ${ended - 5} more` : ''}.`);
  }
  return parts.join(' ');
}

export const haltCommand = subcommand({
  name: 'halt',
  usage,
  summary:
    'Halts one attack (Kubernetes attacks too), or, after a confirmation, every attack you can reach (`all`) or every impact on the platform (`everything`).',
  examples: [
    'halt 6f1c2d3e-aaaa-bbbb-cccc-1234567890ab',
    'halt 6f1c2d3e-aaaa-bbbb-cccc-1234567890ab --reason "error rate too high"',
    'halt all',
    'halt everything',
  ],
  args: forms(
    {
      all: contract({ command: 'halt all', usage }),
      everything: contract({ command: 'halt everything', usage }),
    },
    contract({
      command: 'halt',
      usage,
      words: { id: attackIdWord },
      rest: z.array(z.string()).max(0, 'Put the reason after --reason, in quotes if it has spaces.'),
      flags: { reason: flag.value('some text, in quotes if it has spaces') },
    }),
  ),
  async run(request, { form, args }, deps) {
    if (form) {
      await requireLogin(deps, request.actor);
      return { kind: 'message', message: haltAllPrompt(form === 'all' ? 'attacks' : 'everything') };
    }
    const outcome = await haltAttack(deps, request.actor, { guid: args.words.id }, args.flags.reason);
    return message(haltedText(request.actor, outcome, deps.config.slack.command));
  },
});

/** The Halt button on a card, a list, details or App Home: one click, the clicker's session. */
export async function haltFromButton(action: Action, deps: Deps): Promise<Reply> {
  const ref = parseAttackRef(action.value);
  if (!ref) throw new UserInputError('That button no longer points at an attack.');
  const outcome = await haltAttack(deps, action.actor, ref);
  const text = haltedText(action.actor, outcome, deps.config.slack.command);
  // A Halt in a list redraws that list, with the row in its new state, and says there what happened.
  if (ref.listId && action.container === 'message') {
    const redrawn = await redrawListAfterHalt(deps, ref.listId, outcome, text).catch((error: unknown) => {
      deps.logger.warn({ err: error, attack: outcome.guid }, 'could not redraw the list after a halt');
      return undefined;
    });
    if (redrawn) return redrawn;
  }
  return message(text);
}

/** The confirmed Halt all / Halt everything button. */
export async function haltAllConfirmed(action: Action, deps: Deps): Promise<Reply> {
  const scope: HaltScope = action.value === 'everything' ? 'everything' : 'attacks';
  const login = await requireLogin(deps, action.actor);
  const reason = `Halted from Slack by ${await deps.people.name(action.actor.userId)}`;
  // A mass halt clicked in a channel with a game day (its card, or a prompt there) joins its timeline.
  const channel = action.actor.channelId;
  if (scope === 'everything') {
    // A company-level call: no team is sent, the session decides what is reached.
    const api = platformFor(deps, login, undefined);
    const halter = { by: action.actor, platformUser: login.session.identifier, cause: 'person' as const, reason };
    await explained({ doing: 'halt everything on the platform' }, () => haltEverything(deps, api, halter, channel));
    return message(`:octagonal_sign: <@${action.actor.userId}> halted every active impact on the platform.`);
  }
  const outcome = await haltAllAttacks(deps, action.actor, login, reason, channel);
  return message(massHaltText(action.actor, outcome));
}
