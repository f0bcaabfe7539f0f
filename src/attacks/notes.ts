import { randomUUID } from 'node:crypto';
import { explained } from '../errors.ts';
import { keys } from '../store/keys.ts';
import type { Actor } from '../store/sessions.ts';
import { locateAttack, platformFor, requireLogin, teamName } from './access.ts';
import type { AttackParts } from './service.ts';

/** Runs `work` while holding the attack's note lock (across replicas on Redis), waiting a little for it if taken. */
async function oneAtATime<T>(deps: AttackParts, guid: string, work: () => Promise<T>): Promise<T> {
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
export async function addNote(
  deps: AttackParts,
  actor: Actor,
  id: string,
  text: string,
  teamId?: string,
): Promise<string> {
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
        [key]: `${text} (${await deps.directory.name(actor.userId)})`,
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
