import type { AttackState, CardRecord, LiveCard } from './cards.ts';
import { isOlder } from './lifecycle.ts';

/** The card with the platform's latest state, and whether anything a person sees changed. */
export function withState<C extends Omit<LiveCard, 'guid' | 'teamId' | 'kind' | 'startedBy'>>(
  card: C,
  attack: AttackState,
): { card: C; changed: boolean } {
  if (isOlder(attack, card)) return { card, changed: false };
  const next: C = {
    ...card,
    stage: attack.stage ?? card.stage,
    lifecycle: attack.stage_lifecycle ?? (attack.end_time ? 'Complete' : card.lifecycle),
    startTime: attack.start_time ?? card.startTime,
    endTime: attack.end_time ?? card.endTime,
    totalClients: attack.total_clients ?? card.totalClients,
    annotations: attack.annotations && Object.keys(attack.annotations).length ? attack.annotations : card.annotations,
  };
  // Field by field: the poller asks this of every live card at every pass.
  const changed =
    next.stage !== card.stage ||
    next.lifecycle !== card.lifecycle ||
    next.startTime !== card.startTime ||
    next.endTime !== card.endTime ||
    next.totalClients !== card.totalClients ||
    (next.annotations !== card.annotations && JSON.stringify(next.annotations) !== JSON.stringify(card.annotations));
  return { card: next, changed };
}

/** The change (for CardStore.update) that puts the platform's latest state on a card, when that shows something new. */
export const toState =
  (attack: AttackState) =>
  (card: CardRecord): CardRecord | undefined => {
    const { card: next, changed } = withState(card, attack);
    return changed ? next : undefined;
  };
