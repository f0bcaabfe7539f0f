// A previewed attack: what its preview offers, the attack kept until its Start or Cancel, and
// that one Start or Cancel.
import { randomUUID } from 'node:crypto';
import { UserInputError } from '../errors.ts';
import { guardKey } from '../guardrails/guards.ts';
import { keys } from '../store/keys.ts';
import { type Actor, samePerson } from '../store/sessions.ts';
import { mayRunAttacks, platformFor, requireLogin, teamName } from './access.ts';
import { blastRadius } from './blastRadius.ts';
import type { PendingAttack, StartAsk, StartParts } from './start.ts';
import { startChecks, startPolicy, type StartOutcome } from './startPolicy.ts';

/**
 * Exactly one caller gets true for a pending attack: a double click or a redelivered click must
 * never start a second attack.
 */
function claimPending(deps: StartParts, id: string): Promise<boolean> {
  return deps.store.claim(keys.start.key(id), keys.start.ttlMs);
}

async function dropPending(deps: StartParts, id: string): Promise<void> {
  await deps.store.delete(keys.pending.key(id));
}

/**
 * What a preview offers, after the checks a start would make: nothing to start for a session the
 * platform would not let start it; else the guards as read, the approval rule, and the id its
 * Start button carries. A freeze or an unhealthy guard refuses it here (startChecks throws).
 */
export async function previewAttack(deps: StartParts, ask: StartAsk) {
  const { actor, team, request, channel } = ask;
  if (!mayRunAttacks(team)) return { refused: true } as const;
  const { checks, unknown, rule } = await startChecks(deps, ask);
  const blast = await blastRadius(platformFor(deps, ask.login, team), request.target, teamName(team));
  const pending: PendingAttack = {
    id: randomUUID(),
    actor,
    teamId: team.identifier,
    request,
    channel,
    unknownGuards: unknown.map((c) => guardKey(c.guard.spec)),
    ...('matches' in blast ? { targets: blast } : {}),
  };
  await deps.store.set(keys.pending.key(pending.id), pending, keys.pending.ttlMs);
  return { pendingId: pending.id, checks, unknown, rule, blast };
}

/**
 * Start on a preview: exactly one attack, whatever the number of clicks or deliveries, by the
 * person who asked for the preview, checked again at the click (a freeze or a guard since the
 * preview, or a Start forged past it). `taken`: a second click, a redelivery, or a Cancel
 * already under way, which the first one answers.
 */
export async function startPreviewed(
  deps: StartParts,
  id: string,
  actor: Actor,
  /** Where attacks may start, checked again at the click (the commands' check: it asks Slack). */
  checkChannel: (channel: string) => Promise<string>,
): Promise<{ kind: 'taken' } | { kind: 'expired' } | { kind: 'started'; ask: StartAsk; outcome: StartOutcome }> {
  if (!(await claimPending(deps, id))) return { kind: 'taken' };
  const pending = await deps.store.get<PendingAttack>(keys.pending.key(id));
  if (!pending) return { kind: 'expired' };
  try {
    if (!samePerson(pending.actor, actor)) {
      throw new UserInputError('Only the person who asked for this preview can start it.');
    }
    const channel = await checkChannel(pending.channel);
    const login = await requireLogin(deps, actor);
    const team = login.session.teams.find((t) => t.identifier === pending.teamId);
    if (!team) throw new UserInputError('You are no longer in the team this attack was for. Run the command again.');
    const ask = { actor, login, team, request: pending.request, channel };
    const way = { kind: 'preview', id, acknowledgedGuards: pending.unknownGuards, targets: pending.targets } as const;
    return { kind: 'started', ask, outcome: await startPolicy(deps, ask, way) };
  } finally {
    await dropPending(deps, id).catch((error: unknown) =>
      deps.logger.warn({ err: error }, 'could not drop a used preview'),
    );
  }
}

/** Cancel takes the same claim as Start, so it never says "nothing was sent" while a Start runs. */
export async function cancelPreviewed(deps: StartParts, id: string): Promise<boolean> {
  if (!(await claimPending(deps, id))) return false;
  await dropPending(deps, id);
  return true;
}
