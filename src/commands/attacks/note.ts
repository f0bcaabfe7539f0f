import type { Services } from '../../services.ts';
import { parseAttackRef, attackRefValue } from '../../views/attacks/attackCard.ts';
import { NOTE_TEXT, noteAddedText, noteModal } from '../../views/attacks/note.ts';
import { type Action, message, type Reply, type Submission, type SubmissionReply, subcommand } from '../command.ts';
import { z } from 'zod';
import { contract } from '../contract.ts';
import { UserInputError } from '../../errors.ts';
import { attackIdWord } from '../arguments.ts';

const usage = 'note <attack id> <text>';

export const noteCommand = subcommand({
  name: 'note',
  once: true,
  usage,
  summary: 'Adds a note to an attack; it shows on the attack card.',
  examples: ['note 6f1c2d3e-aaaa-bbbb-cccc-1234567890ab p99 latency doubled on checkout'],
  args: contract({
    command: 'note',
    usage,
    words: { id: attackIdWord },
    rest: z.array(z.string()).min(1, 'What should the note say? Put it after the attack id.'),
    // The note's own words may start with a dash (`-50%`): they are text, not flags.
    textAfterFirstWord: true,
  }),
  async run(request, { words }, { attacks }) {
    const guid = words.id;
    // The note as typed, spaces and quotes kept.
    const text = request.rest
      .trim()
      .slice(request.rest.trim().indexOf(guid) + guid.length)
      .trim();
    if (text.length > 1000) throw new UserInputError('Keep the note under 1,000 characters.', usage);
    return message(noteAddedText(await attacks.note(request.actor, guid, text)));
  },
});

/** The card's Add note button: a small form. */
export async function openNote(action: Action): Promise<Reply> {
  const ref = parseAttackRef(action.value);
  if (!ref) throw new UserInputError('That button no longer points at an attack.');
  return { kind: 'openModal', view: noteModal(attackRefValue(ref), `attack \`${ref.guid}\``) };
}

export async function submitNote(submission: Submission, { attacks }: Services): Promise<SubmissionReply> {
  const ref = parseAttackRef(submission.privateMetadata);
  const text = submission.inputs[NOTE_TEXT]?.trim() ?? '';
  if (!ref)
    return { kind: 'errors', errors: { [NOTE_TEXT]: 'This form lost its attack; close it and click Add note again.' } };
  if (!text) return { kind: 'errors', errors: { [NOTE_TEXT]: 'Write the note first.' } };
  // Slack's form stops at 1,000 characters, but only in the client: the command's limit holds here too.
  if (text.length > 1000) return { kind: 'errors', errors: { [NOTE_TEXT]: 'Keep the note under 1,000 characters.' } };
  await attacks.note(submission.actor, ref.guid, text, ref.teamId);
  return { kind: 'close' };
}
