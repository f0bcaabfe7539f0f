// A start's record, shared by the start policy that writes it (startPolicy.ts) and the job that
// finishes one a stopped bot left (recoverStarts.ts): what a start uses and is asked, its intent,
// written before the create and kept until the card is saved, and the card of a created attack.
import { randomUUID } from 'node:crypto';
import type { PlatformClient, ScopedPlatform, TeamEntry } from '../client/index.ts';
import type { Config } from '../config.ts';
import type { GameDays } from '../gamedays/gamedays.ts';
import type { StepRef } from '../gamedays/plan.ts';
import type { ApprovalBoard, WaitingWorkflowStep } from '../guardrails/approvals.ts';
import type { Freezes } from '../guardrails/freezes.ts';
import type { GuardStore } from '../guardrails/guards.ts';
import type { Logger } from '../logger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import { holdLease } from '../store/leases.ts';
import type { Actor, Login, SessionStore } from '../store/sessions.ts';
import type { TargetSet } from './blastRadius.ts';
import type { CardGuard, CardRecord, CardStore } from './cards.ts';
import type { Recorder } from './events.ts';
import type { AttackRequest } from './request.ts';

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

/** What led to a start: the preview whose Start was clicked, a `--yes` command, or an approval. */
export type StartSource =
  | { kind: 'preview'; id: string }
  | { kind: 'command' }
  | { kind: 'approval'; id: string; approver: { userId: string; userName: string } };

/**
 * A start from Slack, written before the platform is asked and kept until its card is saved:
 * who, what, where and from which preview or approval, then when the create was sent and what it
 * answered. A bot that dies in between leaves it behind, and a restarted one finishes it.
 */
export interface StartIntent {
  id: string;
  source: StartSource;
  actor: Actor;
  /** The starter's platform login, which the platform records as the attack's `create_user`. */
  platformUser: string | undefined;
  teamId: string;
  teamName: string;
  request: AttackRequest;
  channel: string;
  writtenAt: string;
  /** Set just before the create is sent: from then on the platform may hold the attack. */
  createSentAt?: string | undefined;
  /** The guards as the checks before the create read them, for the card. */
  guards?: CardGuard[] | undefined;
  /** The create's answer. */
  guid?: string | undefined;
  /** The game-day plan step it runs. */
  step?: StepRef | undefined;
  /** The Workflow Builder step (Run saved attack) it runs, finished with its outcome. */
  workflowStep?: WaitingWorkflowStep | undefined;
  /** The clients its target matched when the start checked it (blastRadius.ts). */
  targets?: TargetSet | undefined;
}

/** What a restarted bot tells the starter of a start it finished. */
export type StartNews =
  | { kind: 'started'; guid: string; carded: boolean }
  /** The bot stopped before it sent the start to the platform: nothing was started. */
  | { kind: 'not sent' }
  /** The platform's list does not tell which attack, if any, the lost create made. */
  | { kind: 'unconfirmed'; candidates: string[] }
  /** The platform could not be asked (the starter is logged out, or no longer in the team). */
  | { kind: 'unchecked' };

/** Where the starter hears it; the words and the Slack call are src/slack/notices.ts's. */
export interface StartNotices {
  tell(intent: StartIntent, news: StartNews): Promise<void>;
}

/** A start under way in this process: it records each step, and ends the intent when done. */
export interface OpenIntent {
  /** The intent as this process last wrote it. */
  current(): StartIntent;
  /** Just before the platform call. */
  sending(guards: CardGuard[]): Promise<void>;
  /** The platform's answer; the attack exists from here on, whatever happens to this process. */
  created(guid: string): Promise<void>;
  /** The start is over (its card saved, or it failed and its starter was told): nothing is left to finish. */
  end(): Promise<void>;
  /** The attack exists but what follows its create failed: the intent stays for recover-starts to finish. */
  leave(): Promise<void>;
}

/** Writes a start's intent, holding its lease and marking the start under way in the team. */
export async function openIntent(
  deps: Pick<StartParts, 'store' | 'cards' | 'clock'>,
  start: Omit<StartIntent, 'id' | 'writtenAt' | 'createSentAt' | 'guards' | 'guid'>,
): Promise<OpenIntent> {
  let intent: StartIntent = { ...start, id: randomUUID(), writtenAt: new Date(deps.clock.now()).toISOString() };
  const letGo = await holdLease(deps.store, keys.startLease.key(intent.id), keys.startLease.ttlMs);
  try {
    await deps.store.set(keys.startIntent.key(intent.id), intent, keys.startIntent.ttlMs);
    await deps.cards.beginStart(intent.teamId, intent.id);
  } catch (error) {
    await letGo().catch(() => undefined);
    throw error;
  }
  const save = async (changes: Partial<StartIntent>) => {
    intent = { ...intent, ...changes };
    await deps.store.set(keys.startIntent.key(intent.id), intent, keys.startIntent.ttlMs);
  };
  return {
    current: () => intent,
    sending: (guards) => save({ createSentAt: new Date(deps.clock.now()).toISOString(), guards }),
    created: (guid) => save({ guid }),
    async end() {
      try {
        if (intent.workflowStep && intent.guid)
          await deps.store.set(
            keys.stepStarted.key(intent.workflowStep.executionId),
            intent.guid,
            keys.stepStarted.ttlMs,
          );
        await drop(deps, intent);
      } finally {
        await letGo();
      }
    },
    leave: letGo,
  };
}

/** The start is done with: its marker in the team and its intent go. */
export async function drop(deps: Pick<StartParts, 'store' | 'cards'>, intent: StartIntent): Promise<void> {
  await deps.cards.endStart(intent.teamId, intent.id);
  await deps.store.delete(keys.startIntent.key(intent.id));
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
