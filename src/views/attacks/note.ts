import type { ModalView } from '@slack/types';
import { escapeMrkdwn, input, modal, section, textInput } from '../blocks.ts';

export const NOTE_VIEW = 'attack_note';
export const NOTE_TEXT = 'note_text';

export function noteModal(privateMetadata: string, attackLabel: string): ModalView {
  return modal(
    NOTE_VIEW,
    'Add a note',
    [
      section(`A note on ${attackLabel}. It is stored on the attack in the platform and shown on its card.`),
      input(NOTE_TEXT, 'Note', textInput(NOTE_TEXT, undefined, { multiline: true, maxLength: 1000 })),
    ],
    { submit: 'Add note', close: 'Cancel', privateMetadata },
  );
}

/** A note, in the attack's thread. */
export const noteLine = (userId: string, text: string) => `:memo: <@${userId}> noted: ${escapeMrkdwn(text)}`;

/** The answer to whoever added a note. */
export const noteAddedText = (guid: string) => `:memo: Note added to attack \`${guid}\`.`;
