import { randomUUID } from 'node:crypto';
import type { ScopedPlatform, TeamEntry } from '../client/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import type { SessionStore } from '../store/sessions.ts';
import type { PlatformClient } from '../client/index.ts';
import type { GameDays } from '../gamedays/gamedays.ts';
import type { Freezes } from '../guardrails/freezes.ts';
import type { GuardStore } from '../guardrails/guards.ts';
import type { ApprovalBoard } from '../guardrails/approvals.ts';
import type { Recorder } from './events.ts';
import { explained } from '../errors.ts';
import { kubernetesAttackPayload, serviceAttackPayload, targetPayload, type AttackRequest } from './request.ts';
import type { Actor, Login } from '../store/sessions.ts';
import { platformFor, teamName } from './access.ts';
import type { CardGuard, CardRecord, CardStore } from './cards.ts';
import { cardGuards, type GuardCheck } from '../guardrails/guards.ts';
import { type OpenIntent, openIntent, type StartIntent, type StartSource } from './startIntents.ts';
import { keys } from '../store/keys.ts';
import type { StepRef } from '../gamedays/plan.ts';
import type { WaitingWorkflowStep } from '../guardrails/approvals.ts';
import type { TargetSet } from './blastRadius.ts';

/** What a start uses: the policy's freeze, guards and second person, then the create and its card. */
export interface StartParts {
  store: KeyValueStore;
  cards: CardStore;
  events: Recorder;
  logger: Logger;
  clock: { now(): number };
  platform: PlatformClient;
  sessions: SessionStore;
  gameDays: GameDays;
  freezes: Freezes;
  guards: GuardStore;
  /** Where requests for a second person are posted. */
  approvals: ApprovalBoard;
  config: Pick<Config, 'approvalRules'>;
}

/** A previewed attack waiting for its Start button; the button carries only the id. */
export interface PendingAttack {
  id: string;
  actor: Actor;
  teamId: string;
  request: AttackRequest;
  channel: string;
  /** Guards whose state could not be told on the preview, which Start anyway accepts. */
  unknownGuards?: string[] | undefined;
  /** The game-day plan step it runs, when a step asked for it. */
  step?: StepRef | undefined;
  /** The clients its target matched when it was previewed or asked for: a start refuses more. */
  targets?: TargetSet | undefined;
}

export async function savePending(deps: StartParts, pending: Omit<PendingAttack, 'id'>): Promise<PendingAttack> {
  const saved = { ...pending, id: randomUUID() };
  await deps.store.set(keys.pending.key(saved.id), saved, keys.pending.ttlMs);
  return saved;
}

export function loadPending(deps: StartParts, id: string): Promise<PendingAttack | undefined> {
  return deps.store.get<PendingAttack>(keys.pending.key(id));
}

/**
 * Exactly one caller gets true for a pending attack: a double click or a redelivered click must
 * never start a second attack.
 */
export function claimPending(deps: StartParts, id: string): Promise<boolean> {
  return deps.store.claim(keys.start.key(id), keys.start.ttlMs);
}

export async function dropPending(deps: StartParts, id: string): Promise<void> {
  await deps.store.delete(keys.pending.key(id));
}

/**
 * The attack was created, then a step before its card failed (the store did not answer): the
 * person must hear that it runs, never "nothing was done"; recover-starts posts its card later.
 */
export class StartUnfinishedError extends Error {
  override name = 'StartUnfinishedError';
  readonly guid: string;
  constructor(guid: string, cause: unknown) {
    super(`Attack ${guid} started but its card could not be posted yet`, { cause });
    this.guid = guid;
  }
}

export interface StartedAttack {
  guid: string;
  card: CardRecord | undefined;
  /** Set when the attack started but its card could not be posted (e.g. the bot is not in the channel). */
  cardError?: string;
}

/** Who starts what, where: the person's own login, in one of its teams. */
export interface StartAsk {
  actor: Actor;
  login: Login;
  team: TeamEntry;
  request: AttackRequest;
  channel: string;
}

type StartOptions = {
  /** The guards as the policy read them, for the card. */
  checks: GuardCheck[];
  /** The preview, command or approval the start comes from; an approval names its approver. */
  source: StartSource;
  /** The game-day plan step it runs. */
  step?: StepRef | undefined;
  /** The Workflow Builder step it runs. */
  workflowStep?: WaitingWorkflowStep | undefined;
  /** The clients its target matched when the policy checked it. */
  targets?: TargetSet | undefined;
};

/**
 * Creates the attack with the person's own session (never retried: a create that times out has
 * an unknown outcome, which the caller reports), then posts its card in the channel. An intent
 * written first and kept until the card is saved lets a restarted bot finish the start if this
 * one dies (startIntents.ts); while it stands the start is marked under way in the team, so a
 * watch polling meanwhile leaves the card to it instead of posting one of its own. Only the start
 * policy calls it, once a freeze, the guards and a second person let the start through
 * (startPolicy.ts).
 */
export async function startAttack(deps: StartParts, ask: StartAsk, options: StartOptions): Promise<StartedAttack> {
  const { actor, login, team, request, channel } = ask;
  const intent = await openIntent(deps, {
    source: options.source,
    ...(options.step ? { step: options.step } : {}),
    ...(options.workflowStep ? { workflowStep: options.workflowStep } : {}),
    ...(options.targets ? { targets: options.targets } : {}),
    actor,
    platformUser: login.session.identifier,
    teamId: team.identifier,
    teamName: teamName(team),
    request,
    channel,
  });
  let unfinished = false;
  try {
    return await createAndCard(deps, intent, ask, cardGuards(options.checks));
  } catch (error) {
    // Created, then a step before its card failed: the attack runs, so recover-starts finishes it.
    const guid = intent.current().guid;
    if (guid === undefined) throw error;
    unfinished = true;
    throw new StartUnfinishedError(guid, error);
  } finally {
    await (unfinished ? intent.leave() : intent.end()).catch((error: unknown) =>
      deps.logger.warn(
        { err: error, teamId: team.identifier },
        'could not close the record of a start; a restarted bot finishes it without starting it again',
      ),
    );
  }
}

async function createAndCard(
  deps: StartParts,
  intent: OpenIntent,
  { actor, login, team, request, channel }: StartAsk,
  guards: CardGuard[],
): Promise<StartedAttack> {
  const api = platformFor(deps, login, team);
  const name = teamName(team);
  await intent.sending(guards);
  const guid = await explained({ team: name, doing: 'start the attack' }, async () => {
    if (request.target.kind === 'service') {
      const created = await api.attacks.createForService(serviceAttackPayload({ ...request, target: request.target }));
      const first = created[0]?.attackId;
      if (!first) throw new Error('The platform created no attack for the service');
      return first;
    }
    if (request.target.kind === 'kubernetes')
      return api.kubernetes.create(kubernetesAttackPayload({ ...request, target: request.target }));
    return api.attacks.create({
      command: { type: request.type, ...(request.args.length ? { args: request.args } : {}) },
      target: targetPayload(request.target),
    });
  }).catch(async (error: unknown) => {
    // A start that fails is part of the channel's game day too: its timeline and summary say why.
    await deps.events.record({
      kind: 'refused',
      channel,
      by: actor,
      request,
      teamName: name,
      error,
    });
    throw error;
  });
  // Kept even if it cannot be written: the attack runs, and its card matters more now.
  await intent.created(guid).catch((error: unknown) => {
    deps.logger.warn({ err: error, attack: guid }, 'could not record the create of a start under way');
  });
  return cardStarted(deps, { ...intent.current(), guid }, api);
}

/**
 * Marks an attack started from Slack as carded in its channel, before its card is posted, so a
 * watch of the channel polling in between does not post a second card for it; a watch claims
 * the same way for each card it posts.
 */
export function claimWatchCard(store: KeyValueStore, channel: string, guid: string, owner?: string): Promise<boolean> {
  return store.claim(keys.watchCard.key(channel, guid), keys.watchCard.ttlMs, owner);
}

/** A created attack, with what its card shows. */
type CreatedStart = Pick<
  StartIntent,
  'source' | 'actor' | 'platformUser' | 'teamId' | 'teamName' | 'request' | 'channel' | 'guards' | 'step' | 'targets'
> & { guid: string };

/**
 * Everything a start does once the platform created the attack: its guards, the audit line, the
 * approval on the platform's record (when `api` can still write it), then the card and the
 * game-day entry. Shared by a start and by a restarted bot finishing one.
 */
export async function cardStarted(
  deps: StartParts,
  started: CreatedStart,
  api: ScopedPlatform | undefined,
): Promise<StartedAttack> {
  const { guid, actor, request, channel, teamName: name } = started;
  const approvedBy = started.source.kind === 'approval' ? started.source.approver : undefined;
  await claimWatchCard(deps.store, channel, guid).catch((error: unknown) => {
    deps.logger.warn({ err: error, attack: guid }, 'could not mark the attack as carded for a watch of its channel');
  });
  const now = new Date(deps.clock.now()).toISOString();
  const owner = { workspaceId: actor.workspaceId, userId: actor.userId, userName: actor.userName };
  const kind = request.target.kind === 'kubernetes' ? 'kubernetes' : 'attack';
  const attack = {
    guid,
    kind,
    teamId: started.teamId,
    teamName: name,
    channel,
    type: request.type,
    createdAt: now,
    startedBy: owner,
    lengthSeconds: request.lengthSeconds,
  } as const;
  await deps.guards.setForAttack(
    attack,
    (request.guards ?? []).map((spec) => ({ spec, owner })),
  );
  // Its target in words is the recorder's, from the request.
  const card: Omit<CardRecord, 'targetWords'> = {
    ...attack,
    ts: '',
    args: request.args,
    startedByPlatform: started.platformUser,
    stage: 'Pending',
    lifecycle: 'Active',
    totalClients: undefined,
    startTime: undefined,
    endTime: undefined,
    annotations: {},
    haltedBy: [],
    ...(started.guards?.length ? { guards: started.guards } : {}),
    ...(approvedBy ? { approvedBy } : {}),
  };
  if (approvedBy && api) {
    // Both people on the platform's record too, for whoever reads the attack there.
    await api.attacks
      .annotate(guid, {
        'faultline-approval': `Requested by ${actor.userName}, approved by ${approvedBy.userName}`,
      })
      .then(
        (annotated) => (card.annotations = annotated.annotations ?? {}),
        (error: unknown) =>
          deps.logger.warn({ err: error, attack: guid }, 'could not record the approval on the attack'),
      );
  }
  try {
    const saved = await deps.events.record({
      kind: 'started',
      card,
      by: actor,
      platformUser: started.platformUser,
      request,
      ...(started.step ? { step: started.step } : {}),
      ...(started.targets ? { targets: started.targets } : {}),
    });
    return { guid, card: saved };
  } catch (error) {
    deps.logger.warn({ err: error, attack: guid, channel }, 'attack started but its card could not be posted');
    const code = (error as { data?: { error?: string } }).data?.error;
    return { guid, card: undefined, cardError: code ?? 'unknown' };
  }
}
