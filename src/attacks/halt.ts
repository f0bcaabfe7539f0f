import { NotFoundError } from '../client/errors.ts';
import type { ScopedPlatform, TeamEntry } from '../client/index.ts';
import { audit } from '../audit.ts';
import type { Deps } from '../deps.ts';
import { explained } from '../errors.ts';
import type { Actor } from '../store/sessions.ts';
import { platformFor, requireLogin, teamName } from './access.ts';
import { withState, type CardRecord } from './cards.ts';
import { locateAttack } from './locate.ts';

export interface HaltOutcome {
  guid: string;
  kind: 'attack' | 'kubernetes';
  team: TeamEntry;
  card: CardRecord | undefined;
}

/** Marks a card as halted by this person (once), says so in its thread and shows the new stage. */
export async function recordHalt(deps: Deps, card: CardRecord, actor: Actor, api: ScopedPlatform | undefined): Promise<CardRecord> {
  // Two quick clicks both find the card unmarked; the claim lets only one of them say so.
  const first = !card.haltedBy.some((h) => h.userId === actor.userId) && (await deps.store.claim(`halt-noted:${card.guid}:${actor.userId}`, 24 * 3600_000));
  const marked: CardRecord = first ? { ...card, haltedBy: [...card.haltedBy, { userId: actor.userId, at: new Date(deps.clock.now()).toISOString() }] } : card;
  if (first) {
    await deps.slack.post(card.channel, { text: `:octagonal_sign: <@${actor.userId}> halted this attack.` }, { threadTs: card.ts }).catch((error: unknown) => {
      deps.logger.warn({ err: error, attack: card.guid }, 'could not post the halt in the thread');
    });
    await deps.gameDays.record(card.channel, { kind: 'halt', halt: { guid: card.guid, by: actor.userId, at: new Date(deps.clock.now()).toISOString(), scope: 'attack' } });
  }
  // Show the halting stage now rather than at the next poll.
  const state = await (card.kind === 'kubernetes' ? api?.kubernetes.get(card.guid) : api?.attacks.get(card.guid))?.catch(() => undefined);
  const { card: next, changed } = state ? withState(marked, state) : { card: marked, changed: false };
  if (first || changed) await deps.poller.publish(next);
  return next;
}

/**
 * Halts one attack with the clicker's session. Halting is idempotent on the platform, so a
 * second click, a redelivery or a halt of a finished attack all succeed and change nothing.
 */
export async function haltAttack(deps: Deps, actor: Actor, ref: { guid: string; teamId?: string | undefined; kind?: 'attack' | 'kubernetes' | undefined }, reason?: string): Promise<HaltOutcome> {
  const login = await requireLogin(deps, actor);
  const { team, kind: knownKind, card } = await locateAttack(deps, login, ref.guid, ref);
  const api = platformFor(deps, login, team);
  const request = { ...(reason ? { reason } : {}), reference: `slack:${actor.workspaceId}:${actor.userId}` };
  const context = { team: teamName(team), doing: 'halt the attack', subject: `attack ${ref.guid}` };
  let kind = knownKind;
  await explained(context, async () => {
    if (kind === 'kubernetes') return api.kubernetes.halt(ref.guid, request);
    try {
      await api.attacks.halt(ref.guid, request);
      kind = 'attack';
    } catch (error) {
      // An id typed by hand may be a Kubernetes attack's.
      if (kind !== undefined || !(error instanceof NotFoundError)) throw error;
      await api.kubernetes.halt(ref.guid, request);
      kind = 'kubernetes';
    }
  });
  audit(deps.logger, 'attack_halted', actor, { platformUser: login.session.identifier, team: team.identifier, attack: ref.guid, kind, reason });
  // The platform has the halt; what follows only tells Slack, and must not turn it into a failure.
  const updated = card
    ? await recordHalt(deps, card, actor, api).catch((error: unknown) => {
        deps.logger.warn({ err: error, attack: ref.guid }, 'halted, but could not show it on the card');
        return card;
      })
    : undefined;
  return { guid: ref.guid, kind: kind ?? 'attack', team, card: updated };
}
