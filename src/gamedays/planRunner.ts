import type { GameDayParts } from './service.ts';
import { NotLoggedInError } from '../errors.ts';
import { sameAttackWords, savedWords } from '../attacks/saved.ts';
import { guardKey } from '../guardrails/guards.ts';
import { activeStep, nextStep, StepNotAllowedError } from './planChanges.ts';
import { iso, notStarted, StepNotStartedError, tellStep } from './planStepState.ts';
import { countDown, startStep } from './planSteps.ts';
import { answerWaitEnds, awaitedAnswer, type GameDayPlan, positionOf } from './plan.ts';

/**
 * The background pass over the plans: countdowns at zero start, a start a stopped bot left is
 * given up, and the automatic mode counts the next step down, or pauses saying why.
 */

/** A step still starting this long after its countdown ended was left by a stopped bot. */
const staleStartMs = 10 * 60_000;

/**
 * The background pass over every running game day's plan: countdowns that have reached zero
 * start, and the automatic mode counts the next step down when the previous attack has ended,
 * its hypothesis is answered (or the wait set for it has passed) and its guards read healthy (or
 * pauses, saying why).
 */
export async function runPlans(deps: GameDayParts): Promise<void> {
  const now = deps.clock.now();
  for (const base of await deps.gameDays.allRunning()) {
    const plan = await deps.gameDays.plans.get({ gameDayId: base.id });
    for (const step of plan.steps) {
      const ref = { channel: base.channel, gameDayId: base.id, stepId: step.id };
      if (step.state === 'counting down' && Date.parse(step.countdown!.startsAt) <= now) await startStep(deps, ref);
      // A bot stopped between the countdown and the create left the step starting: a start
      // takes seconds, and one whose create was sent is finished by recover-starts, which links it.
      if (step.state === 'running' && !step.guid && Date.parse(step.countdown!.startsAt) + staleStartMs <= now)
        await notStarted(
          deps,
          ref,
          deps.gameDays.describeError(new StepNotStartedError('interrupted', ''), step.teamName),
          now,
        );
    }
    if (plan.auto && !plan.paused) await runAutomatically(deps, base.channel, base.id);
  }
}

async function runAutomatically(deps: GameDayParts, channel: string, gameDayId: string): Promise<void> {
  const day = await deps.gameDays.running(channel);
  const plan = day?.plan;
  if (!day || day.id !== gameDayId || !plan?.auto || plan.paused || activeStep(plan)) return;
  const next = nextStep(plan);
  if (!next) return;
  // The channel answers whether the last hypothesis held first, or the facilitator's wait runs out.
  const awaited = awaitedAnswer(plan);
  if (awaited && !((answerWaitEnds(plan, awaited) ?? Number.POSITIVE_INFINITY) <= deps.clock.now())) return;
  const before = plan.steps.slice(0, positionOf(plan, next.id) - 1).filter((s) => s.state === 'ended');
  const previous = before.at(-1);
  const pause = async (
    why: NonNullable<GameDayPlan['paused']>['why'],
    detail: string,
    change?: NonNullable<GameDayPlan['paused']>['change'],
  ) => {
    await deps.gameDays.plans.change({ gameDayId }, (p) => {
      p.paused ??= { why, detail, at: iso(deps.clock.now()), ...(change ? { change } : {}) };
    });
    await tellStep(deps, channel, { what: 'paused', reason: why, title: detail, at: iso(deps.clock.now()) });
  };
  // The previous attack's guards and the game day's must read healthy now.
  const guards = [...(previous?.request.guards ?? []), ...(await deps.guards.forGameDay(gameDayId)).map((g) => g.spec)];
  for (const spec of guards) {
    const reading = await deps.guards.reading(spec);
    if (reading?.health === 'unhealthy') return pause('guard', reading.name ?? guardKey(spec));
  }
  if (next.source.kind === 'saved') {
    // The step runs the saved attack as planned: one deleted or saved anew since (another version,
    // or other words for a step planned before versions) is for a person to look at.
    const { name, version } = next.source;
    const saved = await deps.savedAttacks.get(next.teamId, name);
    const changed =
      !saved ||
      (version !== undefined && saved.version !== version) ||
      !sameAttackWords(saved.words, savedWords(next.request));
    if (changed)
      return pause('changed', name, saved && { by: saved.changedBy.userId, at: saved.changedAt, words: saved.words });
  }
  try {
    await countDown(deps, day, plan.auto.by, next.id);
  } catch (error) {
    // Its owner may no longer run the next step: a person runs it, or turns the mode on again.
    if (!(error instanceof StepNotAllowedError) && !(error instanceof NotLoggedInError)) throw error;
    return pause('not allowed', String(positionOf(plan, next.id)));
  }
}
