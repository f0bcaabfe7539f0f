import { randomUUID } from 'node:crypto';
import { locateAttack } from '../../attacks/locate.ts';
import type { Deps } from '../../deps.ts';
import { parseAttackRef, attackRefValue } from '../../views/attacks/attackCard.ts';
import { NOTE_TEXT, noteAddedText, noteModal } from '../../views/attacks/note.ts';
import { type Action, message, type Reply, type Submission, type SubmissionReply } from '../reply.ts';
import { z } from 'zod';
import { subcommand } from '../command.ts';
import { contract } from '../contract.ts';
import { explained, UserInputError } from '../../errors.ts';
import type { Actor } from '../../store/sessions.ts';
import { platformFor, requireLogin, teamName } from '../../attacks/access.ts';
import { attackIdWord } from '../arguments.ts';
import { keys } from '../../store/keys.ts';

const usage = 'note <attack id> <text>';

/** Runs `work` while holding the attack's note lock (across replicas on Redis), waiting a little for it if taken. */
async function oneAtATime<T>(deps: Deps, guid: string, work: () => Promise<T>): Promise<T> {
  const lock = keys.noteLock.key(guid);
  const holder = randomUUID();
  for (let attempt = 0; !(await deps.store.claim(lock, keys.noteLock.ttlMs, holder)); attempt++) {
    if (attempt >= 50) throw new Error('A note on this attack is still being saved; try again.');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  try {
    return await work();
  } finally {
    await deps.store.release(lock, holder);
  }
}

/**
 * Adds a note as an annotation (PUT replaces the map, so existing notes are sent back too),
 * then shows it on the card and in its thread.
 */
/** Adds the note; answers the attack's whole id (a short one may have been typed). */
export async function addNote(deps: Deps, actor: Actor, id: string, text: string, teamId?: string): Promise<string> {
  const login = await requireLogin(deps, actor);
  const { guid, team } = await locateAttack(deps, login, id, { teamId });
  const api = platformFor(deps, login, team);
  const context = { team: teamName(team), doing: 'add the note', subject: `attack ${guid}` };
  const key = `note-${new Date(deps.clock.now()).toISOString()}-${actor.userId}`;
  // The platform's PUT replaces every annotation: two notes at once must not each drop the other.
  const annotated = await oneAtATime(deps, guid, () =>
    explained(context, async () => {
      const current = await api.attacks.get(guid);
      return api.attacks.annotate(guid, {
        ...current.annotations,
        [key]: `${text} (${await deps.people.name(actor.userId)})`,
      });
    }),
  );
  await deps.events.record({
    kind: 'note',
    guid,
    teamId: team.identifier,
    by: actor,
    platformUser: login.session.identifier,
    text,
    state: annotated,
  });
  return guid;
}

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
  async run(request, { words }, deps) {
    const guid = words.id;
    // The note as typed, spaces and quotes kept.
    const text = request.rest
      .trim()
      .slice(request.rest.trim().indexOf(guid) + guid.length)
      .trim();
    if (text.length > 1000) throw new UserInputError('Keep the note under 1,000 characters.', usage);
    return message(noteAddedText(await addNote(deps, request.actor, guid, text)));
  },
});

/** The card's Add note button: a small form. */
export async function openNote(action: Action): Promise<Reply> {
  const ref = parseAttackRef(action.value);
  if (!ref) throw new UserInputError('That button no longer points at an attack.');
  return { kind: 'openModal', view: noteModal(attackRefValue(ref), `attack \`${ref.guid}\``) };
}

export async function submitNote(submission: Submission, deps: Deps): Promise<SubmissionReply> {
  const ref = parseAttackRef(submission.privateMetadata);
  const text = submission.inputs[NOTE_TEXT]?.trim() ?? '';
  if (!ref)
    return { kind: 'errors', errors: { [NOTE_TEXT]: 'This form lost its attack; close it and click Add note again.' } };
  if (!text) return { kind: 'errors', errors: { [NOTE_TEXT]: 'Write the note first.' } };
  // Slack's form stops at 1,000 characters, but only in the client: the command's limit holds here too.
  if (text.length > 1000) return { kind: 'errors', errors: { [NOTE_TEXT]: 'Keep the note under 1,000 characters.' } };
  await addNote(deps, submission.actor, ref.guid, text, ref.teamId);
  return { kind: 'close' };
}
