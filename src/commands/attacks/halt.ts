import { z } from 'zod';
import type { Services } from '../../services.ts';
import { parseAttackRef } from '../../views/attacks/attackCard.ts';
import {
  haltAllPrompt,
  haltedEverythingText,
  haltedText,
  type HaltScope,
  massHaltText,
} from '../../views/attacks/halt.ts';
import { type Action, message, type Reply, subcommand } from '../command.ts';
import { contract, flag, forms } from '../contract.ts';
import { UserInputError } from '../../errors.ts';
import { attackIdWord } from '../arguments.ts';
import { redrawListAfterHalt } from './list.ts';
import { publishHome } from '../home.ts';

const usage = 'halt <attack id> [--reason text] | halt all | halt everything';
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
  async run(request, { form, args }, { attacks, login, command }) {
    if (form) {
      await login.require(request.actor);
      return { kind: 'message', message: haltAllPrompt(form === 'all' ? 'attacks' : 'everything') };
    }
    const outcome = await attacks.halt(request.actor, { guid: args.words.id }, args.flags.reason);
    return message(haltedText(request.actor.userId, outcome, command));
  },
});

/** The Halt button on a card, a list, details or App Home: one click, the clicker's session. */
export function haltFromButton(action: Action, deps: Services): Promise<Reply> {
  return haltClicked(action, deps, false);
}

/** Halt again, where a target still ran a minute after a halt: the halt is sent once more, even to an attack being halted. */
export function haltAgainFromButton(action: Action, deps: Services): Promise<Reply> {
  return haltClicked(action, deps, true);
}

async function haltClicked(action: Action, deps: Services, again: boolean): Promise<Reply> {
  const ref = parseAttackRef(action.value);
  if (!ref) throw new UserInputError('That button no longer points at an attack.');
  // On Home the row shows the halt while it is sent; what it did is shown there once it is known.
  const shown =
    action.container === 'home'
      ? publishHome(action.actor, deps, { halting: ref.guid }).catch((error: unknown) =>
          deps.logger.warn({ err: error, attack: ref.guid }, 'could not show the halt on App Home'),
        )
      : undefined;
  const { attacks, command } = deps;
  const outcome = await attacks.halt(action.actor, { ...ref, again }).finally(() => shown);
  const text = haltedText(action.actor.userId, outcome, command);
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
export async function haltAllConfirmed(action: Action, { attacks }: Services): Promise<Reply> {
  const scope: HaltScope = action.value === 'everything' ? 'everything' : 'attacks';
  // A mass halt clicked in a channel with a game day (its card, or a prompt there) joins its timeline.
  const channel = action.actor.channelId;
  if (scope === 'attacks')
    return message(massHaltText(action.actor.userId, await attacks.haltAll(action.actor, channel)));
  await attacks.haltEverything(action.actor, channel);
  return message(haltedEverythingText(action.actor.userId));
}
