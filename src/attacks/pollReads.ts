import { NotFoundError } from '../client/errors.ts';
import type { Attack, PlatformClient, ScopedPlatform } from '../client/index.ts';
import type { Breathe } from '../jobs/scheduler.ts';
import type { Person, SessionStore } from '../store/sessions.ts';
import type { AttackState, LiveCard } from './cards.ts';
import type { Watch } from './watches.ts';

/**
 * The platform as each person who can read the team, in turn: the watches' owners first (a
 * watch reads with its owner's session), then the cards' starters, then (only for cards, and
 * only if none of them can) anyone else logged in with that team, so cards keep moving after
 * their starter logs out.
 */
export async function* readersOf(
  { sessions, platform }: { sessions: SessionStore; platform: PlatformClient },
  teamId: string,
  cards: LiveCard[],
  watches: Watch[],
): AsyncIterable<{ person: Person; api: ScopedPlatform }> {
  const seen = new Set<string>();
  const owners = watches.map((w) => w.by);
  const starters = cards.map((c) => c.startedBy);
  const others = () => (cards.length ? sessions.readersOf(teamId) : Promise.resolve([]));
  for (const people of [owners, starters, others] as const) {
    for (const person of typeof people === 'function' ? await people() : people) {
      const key = `${person.workspaceId}/${person.userId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const login = await sessions.get(person);
      if (login?.session.teams.some((t) => t.identifier === teamId))
        yield { person, api: platform.as({ header: login.session.header, teamId, background: true }) };
    }
  }
}

/** The team's active attacks (and Kubernetes attacks, when a card needs them), by guid. */
export async function readActive(
  api: ScopedPlatform,
  cards: LiveCard[],
  watched: boolean,
  breathe: Breathe,
): Promise<{ states: Map<string, AttackState>; attacks: Attack[] }> {
  const states = new Map<string, AttackState>();
  const attacks: Attack[] = [];
  if (watched || cards.some((c) => c.kind === 'attack')) {
    for await (const attack of api.attacks.iterateActive({ pageSize: 1000 })) {
      states.set(attack.guid, attack);
      // A page takes milliseconds to parse: the next is asked for after a breath.
      if (attacks.push(attack) % 1000 === 0) await breathe();
    }
  }
  if (cards.some((c) => c.kind === 'kubernetes')) {
    for (const attack of await api.kubernetes.list()) states.set(attack.guid, attack);
  }
  return { states, attacks };
}

/** An attack that left the active list, read by itself; one gone from the platform altogether shows as finished. */
export async function readLeft(api: ScopedPlatform, card: LiveCard): Promise<AttackState> {
  try {
    return card.kind === 'kubernetes' ? await api.kubernetes.get(card.guid) : await api.attacks.get(card.guid);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    // Gone from the platform altogether: show it as finished rather than ask forever.
    return { stage: card.stage, stage_lifecycle: 'Complete' };
  }
}
