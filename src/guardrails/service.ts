import type { PlatformClient } from '../client/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import type { Actor, Login, SessionStore } from '../store/sessions.ts';
import type { CardStore } from '../attacks/cards.ts';
import type { Watches } from '../attacks/watches.ts';
import type { Recorder } from '../attacks/events.ts';
import type { StartAsk, StartedAttack } from '../attacks/start.ts';
import type { ApprovedWay } from '../attacks/startPolicy.ts';
import { requireLogin } from '../attacks/access.ts';
import type { Breathe } from '../jobs/scheduler.ts';
import type { GameDays } from '../gamedays/gamedays.ts';
import type { StepRef } from '../gamedays/plan.ts';
import { closeStepApproval, expireApprovals } from './approvalClosing.ts';
import { type ApprovalBoard, approveRequest, rejectRequest, type WorkflowSteps } from './approvals.ts';
import { declareFreeze, liftFreeze, type Scope } from './freezing.ts';
import type { Freezes } from './freezes.ts';
import { enforceGuards } from './guardEnforcement.ts';
import type { GuardStore } from './guards.ts';
import { enforceFreezes, type FreezeNotices } from './sweep.ts';

/** What the guards, freezes and approvals use. */
export interface GuardrailParts {
  store: KeyValueStore;
  guards: GuardStore;
  freezes: Freezes;
  sessions: SessionStore;
  platform: PlatformClient;
  cards: CardStore;
  /** The channels that watch a team: a freeze is announced there. */
  watches: Pick<Watches, 'all'>;
  gameDays: GameDays;
  events: Recorder;
  logger: Logger;
  clock: { now(): number };
  config: Pick<Config, 'approvalRules' | 'pollSeconds'>;
  /** Where requests for a second person are posted, and closed once answered. */
  approvals: ApprovalBoard;
  /** Where a freeze says what keeps it from halting. */
  freezeNotices: FreezeNotices;
  /** Where Workflow Builder steps waiting on an approval are completed or failed. */
  workflow: WorkflowSteps;
  /** What an approved request starts: the attacks' start policy, with the requester's session. */
  startApproved(ask: StartAsk, way: ApprovedWay): Promise<StartedAttack>;
  /** The game-day plan steps that wait on a request: whether one still waits, and that its request closed unstarted. */
  planApprovals: {
    approved(ref: StepRef): Promise<boolean>;
    closed(ref: StepRef, closing: { kind: string; by?: string; approver?: string; error?: unknown }): Promise<void>;
  };
}

/** Guards, freezes and requests for a second person: who may declare, answer or lift them, and their jobs. */
export class GuardrailService {
  readonly #parts: GuardrailParts;

  constructor(parts: GuardrailParts) {
    this.#parts = parts;
  }

  /** The person's login, for reading a scope among their own teams. */
  login(actor: Actor): Promise<Login> {
    return requireLogin(this.#parts, actor);
  }

  freeze(actor: Actor, login: Login, scope: Scope, reason: string) {
    return declareFreeze(this.#parts, actor, login, scope, reason);
  }

  unfreeze(actor: Actor, login: Login, scope: Scope) {
    return liftFreeze(this.#parts, actor, login, scope);
  }

  approve(actor: Actor, requestId: string | undefined) {
    return approveRequest(this.#parts, actor, requestId);
  }

  reject(actor: Actor, requestId: string | undefined) {
    return rejectRequest(this.#parts, actor, requestId);
  }

  enforceGuards(breathe?: Breathe): Promise<void> {
    return enforceGuards(this.#parts, breathe);
  }

  enforceFreezes(): Promise<void> {
    return enforceFreezes(this.#parts);
  }

  /** Closes the request a game-day step waits on, once the step was skipped or vetoed. */
  closeStepApproval(ref: StepRef, stopped: { how: 'skipped' | 'vetoed'; by: string }): Promise<void> {
    return closeStepApproval(this.#parts, ref, stopped);
  }

  expireApprovals(): Promise<void> {
    return expireApprovals(this.#parts);
  }
}
