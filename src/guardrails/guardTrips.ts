import { randomUUID } from 'node:crypto';
import { halt } from '../attacks/halt.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../client/errors.ts';
import type { GuardrailParts } from './service.ts';
import type { Covered, EnforcedGuard } from './guardCoverage.ts';
import { guardKey, guardName, type GuardReading } from './guards.ts';

/**
 * Halts every attack a fired guard covers with the session of someone who set it (its owners in
 * turn: two game days may share a monitor) and the reason `guard <name> fired`, skipping those
 * another guard halted (`actedOn`, shared by a pass's trips). What no owner's session can halt is
 * recorded as not halted, so people are asked to. A halt that fails for another reason is given
 * back for the next pass, without keeping what the others did from being recorded.
 */
export async function tripGuard(
  deps: GuardrailParts,
  enforced: EnforcedGuard,
  reading: GuardReading,
  before: GuardReading | undefined,
  actedOn: Set<string>,
): Promise<Set<string>> {
  const name = guardName(enforced.guard.spec, reading);
  const key = guardKey(enforced.guard.spec);
  const guard = { key, name, state: reading.state, at: reading.at };
  const logins = await Promise.all(
    enforced.owners.map(async (owner) => ({ owner, login: await deps.sessions.get(owner) })),
  );
  const halted = new Set<string>();
  const unhalted: Covered[] = [];
  const failed: string[] = [];
  const holder = randomUUID();
  for (const attack of enforced.attacks) {
    if (actedOn.has(attack.guid)) continue;
    // Another guard has halted it already: nobody needs to halt it again.
    const latest = (await deps.cards.get(attack.guid)) ?? attack;
    if (latest.guards?.some((g) => g.firedAt && g.key !== key)) continue;
    if (!(await deps.guards.claimTrip(enforced.guard.spec, attack.guid, holder))) continue;
    actedOn.add(attack.guid);
    let outcome: 'halted' | 'gone' | 'unhalted' | 'failed' = 'unhalted';
    for (const { owner, login } of logins) {
      const team = login?.session.teams.find((t) => t.identifier === attack.teamId);
      if (!login || !team) continue;
      try {
        const api = deps.platform.as({ header: login.session.header, teamId: team.identifier, background: true });
        const { result } = await halt(
          deps,
          api,
          { guid: attack.guid, kind: attack.kind, teamId: attack.teamId },
          { by: owner, platformUser: login.session.identifier, cause: 'guard', reason: `guard ${name} fired`, guard },
        );
        // An attack that had ended already (or that another halt was stopping) was not halted by this guard.
        outcome = result === 'halted' ? 'halted' : 'gone';
      } catch (error) {
        // Gone from the platform: there is nothing left to halt.
        if (error instanceof NotFoundError) outcome = 'gone';
        // Another owner's session may reach it.
        else if (error instanceof UnauthorizedError || error instanceof ForbiddenError) continue;
        else outcome = 'failed';
      }
      break;
    }
    if (outcome === 'halted') halted.add(attack.guid);
    else if (outcome === 'unhalted') unhalted.push(attack);
    else if (outcome === 'failed') {
      // A platform hiccup: the next pass tries this one again.
      failed.push(attack.guid);
      actedOn.delete(attack.guid);
      await deps.guards.releaseTrip(enforced.guard.spec, attack.guid, holder).catch(() => undefined);
    }
  }
  await deps.events.record({
    kind: 'guard fired',
    guard: { ...guard, owner: enforced.guard.owner },
    halted: enforced.attacks.filter((a) => halted.has(a.guid)),
    notHalted: unhalted,
    gameDays: [...enforced.gameDays],
    already: before?.health === 'unhealthy',
  });
  if (failed.length)
    deps.logger.warn(
      { guard: key, attacks: failed },
      'could not halt attacks a fired guard covers; the next pass tries again',
    );
  return halted;
}
