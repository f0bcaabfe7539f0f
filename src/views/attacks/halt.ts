import type { Button, ConfirmationDialog } from '@slack/types';
import type { Message } from '../message.ts';
import { actions, button, confirmDialog, section } from '../blocks.ts';
import type { HaltOutcome } from '../../attacks/halt.ts';
import type { MassHaltOutcome } from '../../attacks/massHalts.ts';
import { stageWords } from './attackCard.ts';
import { plural } from '../plural.ts';

export const HALT_ALL_CONFIRMED = 'halt_all_confirmed';

/** Scope of a mass halt: the session's attacks, or every impact across the platform. */
export type HaltScope = 'attacks' | 'everything';

export function haltAllConfirm(scope: HaltScope): ConfirmationDialog {
  return scope === 'attacks'
    ? confirmDialog(
        'Halt all attacks?',
        'Every active attack your platform session can reach is halted, in every team, including Kubernetes attacks.',
        'Halt all',
        { danger: true },
      )
    : confirmDialog(
        'Halt everything?',
        'Every active impact across the whole platform is halted, whoever started it.',
        'Halt everything',
        { danger: true },
      );
}

/** The Halt all button (or Halt everything), behind Slack's confirm dialog. */
export function haltAllButton(scope: HaltScope = 'attacks', text = 'Halt all'): Button {
  return button(text, HALT_ALL_CONFIRMED, { style: 'danger', value: scope, confirm: haltAllConfirm(scope) });
}

/** The message `halt all` and `halt everything` answer with: one button, behind Slack's confirm dialog. */
export function haltAllPrompt(scope: HaltScope): Message {
  const text =
    scope === 'attacks'
      ? ':octagonal_sign: *Halt all attacks?* This halts every active attack your session can reach, in every team.'
      : ':octagonal_sign: *Halt everything?* This halts every active impact across the platform, whoever started it.';
  return {
    text,
    blocks: [
      section(text),
      actions('halt_all_prompt', [haltAllButton(scope, scope === 'attacks' ? 'Halt all attacks' : 'Halt everything')]),
    ],
  };
}

/** What a halt did, in words: stopped, already ended (with its outcome), already halting, or unconfirmed. */
export function haltedText(userId: string, outcome: HaltOutcome, cmd: string): string {
  const what = `${outcome.kind === 'kubernetes' ? 'Kubernetes attack' : 'Attack'} \`${outcome.guid}\``;
  const stage = outcome.state?.stage ? stageWords(outcome.state.stage) : undefined;
  if (outcome.result === 'ended')
    return `:information_source: ${what} had already ended${stage ? ` (${stage})` : ''}, so there was nothing to halt.`;
  if (outcome.result === 'unconfirmed')
    return `:warning: The halt of ${outcome.kind === 'kubernetes' ? 'Kubernetes attack' : 'attack'} \`${outcome.guid}\` was sent, but Faultline could not confirm it: the platform did not list it among the attacks it stopped, and cannot show it now. Check \`${cmd} show ${outcome.guid}\` or the web UI, and halt again if it still runs.`;
  if (outcome.result === 'halting')
    return `:octagonal_sign: ${what} is already being halted${outcome.card ? '; its card shows the progress' : ''}.`;
  const where = outcome.card ? ` Its card shows the progress.` : '';
  return `:octagonal_sign: Halt requested for ${outcome.kind === 'kubernetes' ? 'Kubernetes ' : ''}attack \`${outcome.guid}\` by <@${userId}>.${where}`;
}

/** How many attacks `halt all` stopped and how many had already ended, naming the first of those. */
export function massHaltText(userId: string, outcome: MassHaltOutcome): string {
  const halted = outcome.halted.length;
  const kubernetes = outcome.halted.filter((a) => a.kind === 'kubernetes').length;
  const parts = [
    halted
      ? `:octagonal_sign: <@${userId}> halted ${plural(halted, 'attack')}${kubernetes ? ` (${kubernetes} Kubernetes)` : ''}.`
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

/** What Halt everything answers once the platform took it. */
export const haltedEverythingText = (userId: string) =>
  `:octagonal_sign: <@${userId}> halted every active impact on the platform.`;
