import type { Config } from '../config.ts';
import type { Watches } from '../attacks/watches.ts';
import type { StartAsk, StartedAttack, StartParts } from '../attacks/start.ts';
import type { ApprovedWay } from '../attacks/startPolicy.ts';
import type { Breathe } from '../jobs/scheduler.ts';
import type { StepRef } from '../gamedays/plan.ts';
import { mayRunAttacks, platformFor, requireLogin, teamName } from '../attacks/access.ts';
import { type Actor, type Login, samePerson } from '../store/sessions.ts';
import {
  type ApprovalAnswer,
  closeApproval,
  closeApprovalAfterRestart,
  closeStepApproval,
  decide,
  expireApprovals,
  openRecord,
  type WorkflowSteps,
} from './approvals.ts';
import { audit } from '../audit.ts';
import {
  type Declared,
  type Freeze,
  type Freezes,
  haltFrozen,
  type Lifted,
  requireHaltPrivilege,
  type Scope,
  teamChannels,
} from './freezes.ts';
import { enforceGuards } from './guardEnforcement.ts';
import { alertsLike, monitorsLike } from './searches.ts';
import {
  checkGuards,
  type Guard,
  type GuardCheck,
  guardFlag,
  guardKey,
  guardName,
  type GuardReading,
  type GuardSpec,
  type GuardStore,
} from './guards.ts';
import { enforceFreezes, type FreezeNotices, freezeHalter, haltTeamAttacks, type SweepResult } from './sweep.ts';
import type { TeamEntry } from '../client/index.ts';
import { type GameDayAccess, gameDayAccess } from '../gamedays/service.ts';
import type { GameDayRecord } from '../gamedays/gamedayRecord.ts';
import type { ApprovalRecord } from './approvalRequests.ts';
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

type RunningGameDay = GameDayRecord & { id: string };

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

  /**
   * Declares a freeze and halts what runs in its scope, with the person's session: for `freeze`
   * and the Freeze chaos step alike. The privilege is checked first; the freeze is declared before
   * the halt, so no start slips in between, and a halt that fails leaves it standing.
   */
  async freeze(actor: Actor, login: Login, scope: Scope, reason: string): Promise<Declared> {
    const deps = this.#parts;
    // Refused up front: a freeze that cannot halt would promise what it cannot keep.
    requireHaltPrivilege(login, scope, 'freeze');
    const existing = await deps.freezes.get(scope.scope, scope.scope === 'team' ? scope.team.identifier : undefined);
    const channels = existing ? [] : await teamChannels(deps, login, scope);
    const where = [...new Set([...(actor.channelId ? [actor.channelId] : []), ...channels])];
    // Never unannounced: a workflow's freeze of a team nothing shows is told to whoever ran it.
    const announceIn = existing ? [] : where.length ? where : [actor.userId];
    const freeze: Freeze = {
      scope: scope.scope,
      ...(scope.scope === 'team' ? { teamId: scope.team.identifier, teamName: teamName(scope.team) } : {}),
      by: { workspaceId: actor.workspaceId, userId: actor.userId, userName: actor.userName },
      reason,
      since: existing?.since ?? new Date(deps.clock.now()).toISOString(),
      // A workflow's freeze has no channel of its own: it reports where it was announced.
      channel: actor.channelId ?? existing?.channel ?? announceIn[0],
    };
    await deps.freezes.declare(freeze);
    const halting = await haltFrozen(deps, login, scope, freezeHalter(actor, login, reason));
    await deps.events.record({
      kind: 'frozen',
      by: actor,
      platformUser: login.session.identifier,
      scope: scope.scope,
      teamId: freeze.teamId,
      reason,
    });
    return { freeze, wasFrozen: !!existing, halting, announceIn };
  }

  /** Lifts the freeze of the scope, for `unfreeze` and the Unfreeze chaos step; needs what declaring it needs. */
  async unfreeze(actor: Actor, login: Login, scope: Scope): Promise<Lifted> {
    const { freezes, logger } = this.#parts;
    const teamId = scope.scope === 'team' ? scope.team.identifier : undefined;
    const freeze = await freezes.get(scope.scope, teamId);
    if (!freeze) {
      if (scope.scope === 'team') return { freeze: undefined, standing: { all: await freezes.get('all') } };
      const teams = await freezes.touching(login.session.teams.map((t) => t.identifier));
      return { freeze: undefined, standing: { teams: teams.filter((f) => f.scope === 'team') } };
    }
    requireHaltPrivilege(login, scope, 'lift the freeze on');
    await freezes.lift(scope.scope, teamId);
    audit(logger, 'unfreeze', actor, { platformUser: login.session.identifier, team: teamId, scope: scope.scope });
    return { freeze };
  }

  /**
   * Approve: another person, logged in, with EXPERIMENTS_RUN on the team (from their own session).
   * Starts exactly one attack with the requester's session, recording both people.
   */
  async approve(actor: Actor, requestId: string | undefined): Promise<ApprovalAnswer> {
    const deps = this.#parts;
    const record = await openRecord(deps, requestId);
    if (!record) return { kind: 'not open' };
    if (isRequester(record, actor)) return { kind: 'own request' };
    const requesterPlatform =
      record.requestedByPlatform ?? (await deps.sessions.get(record.pending.actor))?.session.identifier;
    if (samePlatformUser(requesterPlatform, (await requireLogin(deps, actor)).session.identifier))
      return { kind: 'same platform login' };
    if (!(await this.#mayRun(actor, record.pending.teamId)))
      return { kind: 'not allowed', decision: 'approve', teamName: record.teamName };
    if (!(await decide(deps, record.id))) return { kind: 'already answered' };
    // A step's start: only while that step still waits for this approval.
    if (record.pending.step && !(await deps.planApprovals.approved(record.pending.step))) {
      await closeApproval(deps, record, { kind: 'step not waiting', approver: actor.userId });
      return { kind: 'not open' };
    }
    const requester = record.pending.actor;
    const login = await deps.sessions.get(requester);
    const team = login?.session.teams.find((t) => t.identifier === record.pending.teamId);
    if (!login || !team) {
      await closeApproval(deps, record, { kind: 'requester gone', approver: actor.userId });
      return { kind: 'requester gone' };
    }
    const approver = { userId: actor.userId, userName: actor.userName };
    try {
      const { request, channel, unknownGuards, step, targets } = record.pending;
      const started = await deps.startApproved(
        { actor: requester, login, team, request, channel },
        { kind: 'approval', id: record.id, approver, acknowledgedGuards: unknownGuards, step, targets },
      );
      await deps.events.record({
        kind: 'approval',
        decision: 'approved',
        by: actor,
        platformUser: login.session.identifier,
        teamId: team.identifier,
        attack: started.guid,
        requestedBy: requester.userId,
      });
      const carded = Boolean(started.card);
      await closeApproval(deps, record, { kind: 'approved', approver: actor.userId, guid: started.guid, carded });
      return { kind: 'started', guid: started.guid, requester: requester.userId };
    } catch (error) {
      await closeApproval(deps, record, { kind: 'not started', approver: actor.userId, error });
      return { kind: 'not started', error };
    }
  }

  /** Reject: the requester withdrawing, or anyone who could have approved. Nothing starts. */
  async reject(actor: Actor, requestId: string | undefined): Promise<ApprovalAnswer> {
    const deps = this.#parts;
    const record = await openRecord(deps, requestId);
    if (!record) return { kind: 'not open' };
    const own = isRequester(record, actor);
    if (!own && !(await this.#mayRun(actor, record.pending.teamId)))
      return { kind: 'not allowed', decision: 'reject', teamName: record.teamName };
    if (!(await decide(deps, record.id))) return { kind: 'already answered' };
    await closeApproval(deps, record, own ? { kind: 'withdrawn' } : { kind: 'rejected', by: actor.userId });
    await deps.events.record({
      kind: 'approval',
      decision: 'rejected',
      by: actor,
      teamId: record.pending.teamId,
      requestedBy: record.pending.actor.userId,
    });
    return { kind: own ? 'withdrawn' : 'rejected' };
  }

  /** Whether this person's own session may run attacks in the team (EXPERIMENTS_RUN): who may answer a request. */
  async #mayRun(actor: Actor, teamId: string): Promise<boolean> {
    const login = await requireLogin(this.#parts, actor);
    const team = login.session.teams.find((t) => t.identifier === teamId);
    return team !== undefined && mayRunAttacks(team);
  }

  /**
   * Adds guards to a running game day, by whoever the game-day rule lets change it
   * (src/gamedays/service.ts), with the person as their owner; gives a reading of each, in
   * order. `checks` are readings already taken of these guards (the form reads them to refuse bad ones).
   */
  async addGameDayGuards(
    actor: Actor,
    record: RunningGameDay,
    specs: readonly GuardSpec[],
    checks?: GuardCheck[],
  ): Promise<{ refused: GameDayAccess } | { readings: (GuardReading | undefined)[] }> {
    const deps = this.#parts;
    const access = await gameDayAccess(deps, actor, record, 'add guards');
    if (!access.may) return { refused: access };
    const owner = { workspaceId: actor.workspaceId, userId: actor.userId, userName: actor.userName };
    const keys = new Set(specs.map(guardKey));
    const all = await deps.guards.addToGameDay(
      record.id,
      specs.map((spec) => ({ spec, owner })),
    );
    let readings = checks;
    if (!readings) {
      const login = await deps.sessions.get(actor);
      const added = all.filter((g) => keys.has(guardKey(g.spec)));
      readings = login?.team ? await checkGuards(deps, platformFor(deps, login, login.team), added) : [];
    }
    return { readings: specs.map((spec) => readings.find((r) => guardKey(r.guard.spec) === guardKey(spec))?.reading) };
  }

  /** Removes guards from a running game day, by whoever may change it; gives the names of those removed, and the flags it did not have. */
  async removeGameDayGuards(
    actor: Actor,
    record: RunningGameDay,
    specs: readonly GuardSpec[],
  ): Promise<{ refused: GameDayAccess } | { removed: string[]; missing: string[] }> {
    const deps = this.#parts;
    const access = await gameDayAccess(deps, actor, record, 'remove guards');
    if (!access.may) return { refused: access };
    const flags = specs.map(guardFlag);
    const removed = await deps.guards.removeFromGameDay(record.id, flags);
    const names: string[] = [];
    for (const guard of removed) names.push(guardName(guard.spec, await deps.guards.reading(guard.spec)));
    return { removed: names, missing: flags.filter((flag) => !removed.some((g) => guardFlag(g.spec) === flag)) };
  }

  /** Reads guards with a person's session in the team, keeping each reading. */
  checkGuards = (login: Login, team: TeamEntry, guards: Guard[]) =>
    checkGuards(this.#parts, platformFor(this.#parts, login, team), guards);
  /** What the guard form offers as the person types: monitors, alert names (searches.ts). */
  monitorsLike = (login: Login, team: TeamEntry, ...a: AfterParts<typeof monitorsLike>) =>
    monitorsLike(platformFor(this.#parts, login, team), ...a);
  alertsLike = (login: Login, team: TeamEntry, ...a: AfterParts<typeof alertsLike>) =>
    alertsLike(platformFor(this.#parts, login, team), ...a);
  /** Halts one team's attacks with the person's session (Halt all chaos attacks, in one team). */
  haltTeam(actor: Actor, login: Login, team: TeamEntry, reason: string): Promise<SweepResult> {
    const halter = {
      by: actor,
      platformUser: login.session.identifier,
      cause: 'person',
      reason,
      scope: 'all',
    } as const;
    return haltTeamAttacks(this.#parts, platformFor(this.#parts, login, team), halter);
  }

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

/** The person who asked, on the Slack account they asked from. */
const isRequester = (r: ApprovalRecord, a: Actor) => samePerson(r.pending.actor, a);

/** The same platform login as the requester's, from any Slack account. */
const samePlatformUser = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();
