import type { Attack } from '../client/schemas.ts';
import { NotFoundError } from '../client/errors.ts';
import { keys } from '../store/keys.ts';
import type { Actor, Login } from '../store/sessions.ts';
import { platformFor } from './access.ts';
import { isFinished } from './lifecycle.ts';
import type { StartParts } from './start.ts';

type Parts = Pick<StartParts, 'store' | 'sessions' | 'platform' | 'logger'>;

/** An attack halted from someone's App Home, followed until it has ended. */
interface HomeHalt {
  actor: Actor;
  guid: string;
  teamId: string;
}

/** Follows an attack the person halted from App Home, so their Home is drawn again when it ends. */
export async function followHomeHalt(parts: Parts, actor: Actor, login: Login, guid: string): Promise<void> {
  if (!login.team) return;
  const follow: HomeHalt = { actor, guid, teamId: login.team.identifier };
  await parts.store.set(keys.homeHalt.key(actor.userId, guid), follow, keys.homeHalt.ttlMs);
}

/**
 * The attacks halted from App Home that have ended since the last pass, each once: whoever halted
 * it, and the attack as it ended. One no longer readable with their session is let go.
 */
export async function* endedHomeHalts(parts: Parts): AsyncGenerator<{ actor: Actor; guid: string; state: Attack }> {
  for await (const [, halt] of parts.store.entries<HomeHalt>(keys.homeHalt.prefix)) {
    const key = keys.homeHalt.key(halt.actor.userId, halt.guid);
    const login = await parts.sessions.get(halt.actor);
    const team = login?.session.teams.find((t) => t.identifier === halt.teamId);
    if (!login || !team) {
      await parts.store.delete(key);
      continue;
    }
    const state = await platformFor(parts, login, team)
      .attacks.get(halt.guid)
      .catch(async (error: unknown) => {
        // Not an attack the platform reads this way (a Kubernetes one): Home shows it as it is.
        if (error instanceof NotFoundError) await parts.store.delete(key);
        else parts.logger.warn({ err: error, attack: halt.guid }, 'could not follow a halt from App Home');
        return undefined;
      });
    if (!state || !isFinished(state)) continue;
    await parts.store.delete(key);
    yield { actor: halt.actor, guid: halt.guid, state };
  }
}
