import { z } from 'zod';
import { haltAttack } from '../../attacks/halt.ts';
import { haltAllAttacks, haltEverything } from '../../attacks/massHalts.ts';
import type { Deps } from '../../deps.ts';
import { parseAttackRef } from '../../views/attacks/attackCard.ts';
import {
  haltAllPrompt,
  haltedEverythingText,
  haltedText,
  type HaltScope,
  massHaltText,
} from '../../views/attacks/halt.ts';
import { type Action, message, type Reply } from '../reply.ts';
import { subcommand } from '../command.ts';
import { contract, flag, forms } from '../contract.ts';
import { explained, UserInputError } from '../../errors.ts';
import { attackIdWord } from '../arguments.ts';
import { platformFor, requireLogin } from '../../attacks/access.ts';
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
  async run(request, { form, args }, deps) {
    if (form) {
      await requireLogin(deps, request.actor);
      return { kind: 'message', message: haltAllPrompt(form === 'all' ? 'attacks' : 'everything') };
    }
    const outcome = await haltAttack(deps, request.actor, { guid: args.words.id }, args.flags.reason);
    return message(haltedText(request.actor.userId, outcome, deps.config.slack.command));
  },
});

/** The Halt button on a card, a list, details or App Home: one click, the clicker's session. */
export function haltFromButton(action: Action, deps: Deps): Promise<Reply> {
  return haltClicked(action, deps, false);
}

/** Halt again, where a target still ran a minute after a halt: the halt is sent once more, even to an attack being halted. */
export function haltAgainFromButton(action: Action, deps: Deps): Promise<Reply> {
  return haltClicked(action, deps, true);
}

async function haltClicked(action: Action, deps: Deps, again: boolean): Promise<Reply> {
  const ref = parseAttackRef(action.value);
  if (!ref) throw new UserInputError('That button no longer points at an attack.');
  // On Home the row shows the halt while it is sent; what it did is shown there once it is known.
  const shown =
    action.container === 'home'
      ? publishHome(action.actor, deps, { halting: ref.guid }).catch((error: unknown) =>
          deps.logger.warn({ err: error, attack: ref.guid }, 'could not show the halt on App Home'),
        )
      : undefined;
  const outcome = await haltAttack(deps, action.actor, { ...ref, again }).finally(() => shown);
  const text = haltedText(action.actor.userId, outcome, deps.config.slack.command);
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
    return message(haltedEverythingText(action.actor.userId));
  }
  const outcome = await haltAllAttacks(deps, action.actor, login, reason, channel);
  return message(massHaltText(action.actor.userId, outcome));
}
