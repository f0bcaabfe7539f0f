import type { Config } from '../config.ts';
import type { Watches } from '../attacks/watches.ts';
import type { StartAsk, StartedAttack, StartParts } from '../attacks/start.ts';
import type { ApprovedWay } from '../attacks/startPolicy.ts';
import type { Breathe } from '../jobs/scheduler.ts';
import type { StepRef } from '../gamedays/plan.ts';
import { closeApprovalAfterRestart, closeStepApproval, expireApprovals } from './approvalClosing.ts';
import { approveRequest, rejectRequest, type WorkflowSteps } from './approvals.ts';
import { declareFreeze, liftFreeze } from './freezing.ts';
import type { Freezes } from './freezes.ts';
import { enforceGuards } from './guardEnforcement.ts';
import type { GuardStore } from './guardStore.ts';
import { enforceFreezes, type FreezeNotices, haltTeamAttacks } from './sweep.ts';
import { addGameDayGuards, removeGameDayGuards } from './gamedayGuards.ts';
import { checkGuards } from './guards.ts';
import type { AfterParts } from '../parts.ts';

/** What the guards, freezes and approvals use: what a start uses (they read guards and post requests), and more. */
export interface GuardrailParts extends StartParts {
  /** The channels that watch a team: a freeze is announced there. */
  watches: Pick<Watches, 'all'>;
  config: Pick<Config, 'approvalRules' | 'pollSeconds'>;
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
    this.freezes = parts.freezes;
    this.guards = parts.guards;
  }

  /** The freezes declared, read where they are shown (status, App Home). */
  readonly freezes: Freezes;
  /** The guards of attacks and game days, and their last readings. */
  readonly guards: GuardStore;

  /** A freeze declared or lifted, and a request approved or rejected, by whoever may. */
  freeze = (...a: AfterParts<typeof declareFreeze>) => declareFreeze(this.#parts, ...a);
  unfreeze = (...a: AfterParts<typeof liftFreeze>) => liftFreeze(this.#parts, ...a);
  approve = (...a: AfterParts<typeof approveRequest>) => approveRequest(this.#parts, ...a);
  reject = (...a: AfterParts<typeof rejectRequest>) => rejectRequest(this.#parts, ...a);

  /** A game day's guards, added or removed by whoever may change the game day. */
  addGameDayGuards = (...a: AfterParts<typeof addGameDayGuards>) => addGameDayGuards(this.#parts, ...a);
  removeGameDayGuards = (...a: AfterParts<typeof removeGameDayGuards>) => removeGameDayGuards(this.#parts, ...a);
  /** Reads guards with a person's session, keeping each reading. */
  checkGuards = (...a: AfterParts<typeof checkGuards>) => checkGuards(this.#parts, ...a);
  /** Halts a team's attacks (Halt all chaos attacks in one team). */
  haltTeam = (...a: AfterParts<typeof haltTeamAttacks>) => haltTeamAttacks(this.#parts, ...a);

  /** Closes the request whose approved start a restarted bot finished. */
  closeAfterRestart = (...a: AfterParts<typeof closeApprovalAfterRestart>) =>
    closeApprovalAfterRestart(this.#parts, ...a);

  /** The jobs: guards and freezes enforced, requests expired. */
  enforceGuards = (breathe?: Breathe) => enforceGuards(this.#parts, breathe);
  enforceFreezes = () => enforceFreezes(this.#parts);
  expireApprovals = () => expireApprovals(this.#parts);
  /** Closes the request a game-day step waits on, once the step was skipped or vetoed. */
  closeStepApproval = (...a: AfterParts<typeof closeStepApproval>) => closeStepApproval(this.#parts, ...a);
}
