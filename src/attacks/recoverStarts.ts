import { platformTimeoutMs, type ScopedPlatform } from '../client/index.ts';
import type { AttackParts } from './service.ts';
import type { closeApprovalAfterRestart } from '../guardrails/approvals.ts';
import type { AfterParts } from '../parts.ts';
import { keys } from '../store/keys.ts';
import { takeLease } from '../store/leases.ts';
import { platformFor } from './access.ts';
import { shownIn } from './cards.ts';
import { cardStarted, drop, type StartIntent, type StartNews } from './start.ts';

// The start a stopped bot left half done, finished by the next one: it sits above the start and
// the approvals it finishes, while the intent it reads sits below the start that writes it.

/** Clocks of the bot and the platform may disagree by this much when matching `created_at`. */
const clockSkewMs = 60_000;

/** What finishing a start uses: the attacks' parts, and the close of the request it was approved by (the guardrails'). */
export type CloseApproved = (...args: AfterParts<typeof closeApprovalAfterRestart>) => Promise<void>;
type RecoverParts = AttackParts & { closeApproved: CloseApproved };

/**
 * Finishes every start a stopped bot left half done, never creating an attack again: one whose
 * create was answered gets its card (unless it has one) and its starter a direct message with
 * its id; one whose create was sent but not answered is looked for on the platform (see
 * findCreated); one that never reached the platform is dropped, and its starter told. Markers go
 * with it. Runs at start-up and then as the recover-starts job; never throws.
 */
export async function recoverStarts(deps: RecoverParts): Promise<number> {
  let finished = 0;
  try {
    const intents: StartIntent[] = [];
    for await (const [, intent] of deps.store.entries<StartIntent>(keys.startIntent.prefix)) intents.push(intent);
    for (const listed of intents) {
      // Held: a start still running in a live process, or being finished by another replica.
      const letGo = await takeLease(deps.store, keys.startLease.key(listed.id), keys.startLease.ttlMs);
      if (!letGo) continue;
      try {
        const intent = await deps.store.get<StartIntent>(keys.startIntent.key(listed.id));
        if (intent && (await finish(deps, intent, intents))) finished++;
      } catch (error) {
        deps.logger.warn({ err: error, start: listed.id }, 'could not finish a start a stopped bot left; trying again');
      } finally {
        await letGo().catch(() => undefined);
      }
    }
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not look for starts a stopped bot left');
  }
  return finished;
}

/** True when the intent is done with; false when it must wait for a later pass. */
async function finish(deps: RecoverParts, intent: StartIntent, all: StartIntent[]): Promise<boolean> {
  const login = await deps.sessions.get(intent.actor);
  const team = login?.session.teams.find((t) => t.identifier === intent.teamId);
  const api = login && team ? platformFor(deps, login, team) : undefined;
  let guid = intent.guid;
  if (guid === undefined) {
    const found =
      intent.createSentAt === undefined
        ? ({ kind: 'unsent' } as const)
        : await findCreated(
            deps,
            intent,
            all,
            login && api ? { platformUser: login.session.identifier, api } : undefined,
          );
    if (found.kind === 'wait') return false;
    if (found.kind !== 'found') {
      const news: StartNews =
        found.kind === 'unsent'
          ? { kind: 'not sent' }
          : found.kind === 'unchecked'
            ? { kind: 'unchecked' }
            : { kind: 'unconfirmed', candidates: found.candidates };
      await tell(deps, intent, news);
      if (intent.source.kind === 'approval')
        await deps.closeApproved(intent.source.id, intent.source.approver, undefined);
      await stepEnded(deps, intent, news);
      await drop(deps, intent);
      deps.logger.info(
        { start: intent.id, team: intent.teamId, outcome: found.kind },
        'dropped a start a stopped bot left; nothing was started again',
      );
      return true;
    }
    guid = found.guid;
    await deps.store.set(keys.startIntent.key(intent.id), { ...intent, guid }, keys.startIntent.ttlMs);
  }
  const existing = await deps.cards.get(guid);
  const carded =
    existing && shownIn(existing, intent.channel)
      ? true
      : Boolean((await cardStarted(deps, { ...intent, guid }, api)).card);
  await tell(deps, intent, { kind: 'started', guid, carded });
  if (intent.source.kind === 'approval') {
    const { approver } = intent.source;
    await deps.closeApproved(intent.source.id, approver, { guid, carded });
    // As the live approval records it once its start returns, which the stopped bot never saw.
    await deps.events.record({
      kind: 'approval',
      decision: 'approved',
      by: { workspaceId: intent.actor.workspaceId, ...approver },
      platformUser: intent.platformUser,
      teamId: intent.teamId,
      attack: guid,
      requestedBy: intent.actor.userId,
    });
  }
  await stepEnded(deps, intent, { kind: 'started', guid, carded });
  await drop(deps, intent);
  deps.logger.info({ start: intent.id, team: intent.teamId, attack: guid }, 'finished a start a stopped bot left');
  return true;
}

/** The workflow step that ran the start takes its outcome; the step run is then over. */
async function stepEnded(deps: RecoverParts, intent: StartIntent, news: StartNews): Promise<void> {
  if (!intent.workflowStep) return;
  await deps.workflow.startEnded(intent.workflowStep, news);
  await deps.store.delete(keys.stepOpen.key(intent.workflowStep.executionId));
}

/** Late news goes by direct message: the reply the starter was waiting for is gone with the old process. */
async function tell(deps: RecoverParts, intent: StartIntent, news: StartNews): Promise<void> {
  await deps.startNotices
    .tell(intent, news)
    .catch((error: unknown) =>
      deps.logger.warn({ err: error, start: intent.id }, 'could not tell the starter how a start ended'),
    );
}

type Found =
  | { kind: 'found'; guid: string }
  | { kind: 'wait' }
  | { kind: 'unconfirmed'; candidates: string[] }
  | { kind: 'unchecked' };

/**
 * The attack a create whose answer was lost made, if the platform lists exactly one that fits:
 * created by the starter's login, of the intent's type (and Kubernetes command), within the
 * create's time, and not already known to another start or card. The platform takes no
 * reference with a create, so this is the only trace. Until the client itself would have given
 * up on the answer, "none" may still become one; after that, none or several is left to the
 * starter, who is told, and nothing is created again.
 */
async function findCreated(
  deps: RecoverParts,
  intent: StartIntent,
  all: StartIntent[],
  asStarter: { platformUser: string | undefined; api: ScopedPlatform } | undefined,
): Promise<Found> {
  // Without the starter's session in the team, the platform cannot be asked.
  if (!asStarter) return { kind: 'unchecked' };
  const { api } = asStarter;
  const platformUser = (intent.platformUser ?? asStarter.platformUser)?.toLowerCase();
  const sentAt = Date.parse(intent.createSentAt!);
  const settled = deps.clock.now() >= sentAt + platformTimeoutMs;
  const from = sentAt - clockSkewMs;
  const until = sentAt + platformTimeoutMs + clockSkewMs;
  const within = (at: string | undefined) => {
    const time = at === undefined ? Number.NaN : Date.parse(at);
    return time >= from && time <= until;
  };
  const type = intent.request.type.toLowerCase();
  const candidates: string[] = [];
  if (intent.request.target.kind === 'kubernetes') {
    for (const attack of await api.kubernetes.list())
      if (within(attack.created_at) && attack.impact_definition?.cli_args?.[0]?.toLowerCase() === type)
        candidates.push(attack.guid);
  } else {
    const range = { startTime: new Date(from), endTime: new Date(Math.min(until, deps.clock.now() + clockSkewMs)) };
    for await (const attack of api.attacks.iterateRange(range))
      if (
        within(attack.created_at) &&
        attack.create_user?.toLowerCase() === platformUser &&
        attack.infra_command?.type?.toLowerCase() === type
      )
        candidates.push(attack.guid);
  }
  const known = new Set(all.flatMap((other) => (other.id !== intent.id && other.guid ? [other.guid] : [])));
  const fresh: string[] = [];
  for (const guid of candidates) if (!known.has(guid) && !(await deps.cards.get(guid))) fresh.push(guid);
  if (fresh.length === 1) return { kind: 'found', guid: fresh[0]! };
  return settled ? { kind: 'unconfirmed', candidates: fresh } : { kind: 'wait' };
}
