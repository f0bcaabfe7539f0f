import type { Button, ConfirmationDialog } from '@slack/types';
import type { Message } from './message.ts';
import { actions, button, section } from './blocks.ts';

export const HALT_ALL_CONFIRMED = 'halt_all_confirmed';

/** Scope of a mass halt: the session's attacks, or every impact across the platform. */
export type HaltScope = 'attacks' | 'everything';

export function haltAllConfirm(scope: HaltScope): ConfirmationDialog {
  return scope === 'attacks'
    ? {
        title: { type: 'plain_text', text: 'Halt all attacks?' },
        text: {
          type: 'mrkdwn',
          text: 'Every active attack your platform session can reach is halted, in every team, including Kubernetes attacks.',
        },
        confirm: { type: 'plain_text', text: 'Halt all' },
        deny: { type: 'plain_text', text: 'Cancel' },
        style: 'danger',
      }
    : {
        title: { type: 'plain_text', text: 'Halt everything?' },
        text: { type: 'mrkdwn', text: 'Every active impact across the whole platform is halted, whoever started it.' },
        confirm: { type: 'plain_text', text: 'Halt everything' },
        deny: { type: 'plain_text', text: 'Cancel' },
        style: 'danger',
      };
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
