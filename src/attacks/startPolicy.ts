import { explained } from '../errors.ts';
import type { StepRef } from '../gamedays/plan.ts';
import { approvalNeeded, type ApprovalRule, requestApproval } from '../guardrails/approvalRequests.ts';
import type { WaitingWorkflowStep } from '../guardrails/approvals.ts';
import { FrozenError } from '../guardrails/freezes.ts';
import {
  cardGuards,
  checkGuards,
  coveringGuards,
  type GuardCheck,
  guardStart,
  refuseIfMissing,
  refuseIfUnhealthy,
  unknownGuards,
} from '../guardrails/guards.ts';
import { platformFor, teamName } from './access.ts';
import { confirmTargets, recordedTargets, type TargetSet } from './blastRadius.ts';
import type { CardGuard } from './cards.ts';
import { kubernetesAttackPayload, serviceAttackPayload, targetPayload } from './request.ts';
import {
  cardStarted,
  type OpenIntent,
  openIntent,
  type StartAsk,
  type StartedAttack,
  type StartIntent,
  type StartParts,
  StartUnfinishedError,
} from './start.ts';

/**
 * The start policy: the one place that decides whether an attack starts, and the create it lets
 * through. Every way in goes through it in the same order: a freeze refuses; then the target is
 * resolved again, and a set that matches nothing or grew since the preview or the approval
 * refuses (blastRadius.ts); then every guard covering the start is read, an unhealthy one
 * refuses, one the start names itself that finds no monitor or alert refuses, and one that
 * cannot be read needs the person's Start anyway; then a rule may ask for a second person, whose
 * request is posted instead of starting; then the start intent is written and the attack created
 * (startAttack). A rehearsal's start (rehearseStart) stops before the request and the create.
 * The ways in say what they are and render the outcome; refusals are thrown as the errors the
 * views word (FrozenError, UnhealthyGuardsError, MissingGuardsError, GuardsUnknownError).
 */

/** What asks for the start. */
export type StartWay =
  /** `attack … --yes`, or `run <name> --yes`. */
  | { kind: 'command' }
  /** Start, Start anyway or Request approval on a preview; Start anyway names the guards it accepts. */
  | {
      kind: 'preview';
      id: string;
      acknowledgedGuards?: readonly string[] | undefined;
      /** The clients the preview showed: the start refuses a set that grew since. */
      targets?: TargetSet | undefined;
    }
  /** Run saved attack in Workflow Builder. */
  | { kind: 'workflow step'; step: WaitingWorkflowStep }
  /** A game-day plan step at zero; it waits for a second person from just before the request is posted. */
  | { kind: 'plan step'; step: StepRef; awaitApproval: () => Promise<void> }
  | ApprovedWay;

/** A request a second person approved: checked again, and never asked again. */
export type ApprovedWay = {
  kind: 'approval';
  id: string;
  approver: { userId: string; userName: string };
  acknowledgedGuards?: readonly string[] | undefined;
  step?: StepRef | undefined;
  /** The clients the request was approved for: the approval covers them, not more. */
  targets?: TargetSet | undefined;
};

export type StartOutcome =
  | { kind: 'started'; started: StartedAttack }
  | { kind: 'approval requested'; rule: ApprovalRule; channel: string };

/** A start in a frozen team is refused, with who froze it, since when and why. */
async function refuseIfFrozen(deps: StartParts, { team }: StartAsk): Promise<void> {
  const freeze = await deps.freezes.covering(team.identifier);
  if (freeze) throw new FrozenError(freeze);
}

const apiOf = (deps: StartParts, ask: StartAsk) => platformFor(deps, ask.login, ask.team);
const covering = (deps: StartParts, ask: StartAsk) => coveringGuards(deps, ask.actor, ask.channel, ask.request.guards);

const ruleFor = (deps: StartParts, { actor, team, request, channel }: StartAsk) =>
  approvalNeeded(deps, { actor, teamId: team.identifier, request, channel }, team);

/**
 * What a start would meet now, for the preview: a freeze or an unhealthy guard refuses, guards
 * that cannot be read are shown (Start becomes Start anyway), and the rule asking for a second
 * person, if any (Start becomes Request approval). Nothing is posted or started.
 */
export async function startChecks(
  deps: StartParts,
  ask: StartAsk,
): Promise<{ checks: GuardCheck[]; unknown: GuardCheck[]; rule: ApprovalRule | undefined }> {
  await refuseIfFrozen(deps, ask);
  const checks = await checkGuards(deps, apiOf(deps, ask), await covering(deps, ask));
  refuseIfUnhealthy(checks);
  refuseIfMissing(checks, ask.request.guards);
  return { checks, unknown: unknownGuards(checks), rule: ruleFor(deps, ask) };
}

/** What a start meets before anything is asked or created: the policy's checks, in their order. */
async function policyChecks(deps: StartParts, ask: StartAsk, way: StartWay | { kind: 'rehearsal' }) {
  await refuseIfFrozen(deps, ask);
  const targets = await confirmTargets(apiOf(deps, ask), ask.request.target, teamName(ask.team), recordedTargets(way));
  const acknowledged = way.kind === 'preview' || way.kind === 'approval' ? way.acknowledgedGuards : undefined;
  const checks = await guardStart(deps, apiOf(deps, ask), await covering(deps, ask), acknowledged);
  refuseIfMissing(checks, ask.request.guards);
  const rule = way.kind === 'approval' ? undefined : ruleFor(deps, ask);
  return { targets, acknowledged, checks, rule };
}

/** Freeze, guards, a second person, then the start; see the top of this file. */
export async function startPolicy(deps: StartParts, ask: StartAsk, way: ApprovedWay): Promise<StartedAttack>;
export async function startPolicy(deps: StartParts, ask: StartAsk, way: StartWay): Promise<StartOutcome>;
export async function startPolicy(
  deps: StartParts,
  ask: StartAsk,
  way: StartWay,
): Promise<StartOutcome | StartedAttack> {
  const { targets, acknowledged, checks, rule } = await policyChecks(deps, ask, way);
  const step = way.kind === 'plan step' || way.kind === 'approval' ? way.step : undefined;
  const workflowStep = way.kind === 'workflow step' ? way.step : undefined;
  if (rule) {
    if (way.kind === 'plan step') await way.awaitApproval();
    const pending = {
      actor: ask.actor,
      teamId: ask.team.identifier,
      request: ask.request,
      channel: ask.channel,
      ...(acknowledged?.length ? { unknownGuards: [...acknowledged] } : {}),
      ...(step ? { step } : {}),
      ...(targets ? { targets } : {}),
    };
    const requested = await requestApproval(deps, pending, ask.team, rule, workflowStep);
    return { kind: 'approval requested', ...requested };
  }
  const started = await startAttack(deps, ask, {
    checks,
    source:
      way.kind === 'approval'
        ? { kind: 'approval', id: way.id, approver: way.approver }
        : way.kind === 'preview'
          ? { kind: 'preview', id: way.id }
          : { kind: 'command' },
    step,
    workflowStep,
    targets,
  });
  return way.kind === 'approval' ? started : { kind: 'started', started };
}

/** What a rehearsed start would have done: the clients it would hit, and who else it would need. */
export interface RehearsedStart {
  /** None for a service or Kubernetes target: the platform resolves those only when it creates the attack. */
  targets: TargetSet | undefined;
  /** The rule that would ask a second person; nobody is asked. */
  rule: ApprovalRule | undefined;
}

/**
 * A rehearsal's start (a step of `gameday start --rehearsal` at zero): the policy's own checks, so
 * a freeze, a target that matches nothing and an unhealthy or unreadable guard refuse it as they
 * refuse a start, then nothing: no request for a second person, no start intent, no create.
 */
export async function rehearseStart(deps: StartParts, ask: StartAsk): Promise<RehearsedStart> {
  const { targets, rule } = await policyChecks(deps, ask, { kind: 'rehearsal' });
  return { targets, rule };
}

/** Where the start comes from, as its intent records it, and the guards as the policy read them, for the card. */
type StartOptions = Pick<StartIntent, 'source' | 'step' | 'workflowStep' | 'targets'> & { checks: GuardCheck[] };

/**
 * Creates the attack with the person's own session (never retried: a create that times out has
 * an unknown outcome, which the caller reports), then posts its card in the channel. An intent
 * written first and kept until the card is saved lets a restarted bot finish the start if this
 * one dies (recoverStarts.ts); while it stands the start is marked under way in the team, so a
 * watch polling meanwhile leaves the card to it instead of posting one of its own.
 */
async function startAttack(deps: StartParts, ask: StartAsk, options: StartOptions): Promise<StartedAttack> {
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
