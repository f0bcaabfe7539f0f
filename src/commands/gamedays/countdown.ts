import type { Services } from '../../services.ts';
import { UserInputError } from '../../errors.ts';
import { positionOf, type StepRef } from '../../gamedays/plan.ts';
import { mayTake, type StepActionOutcome } from '../../gamedays/planStepState.ts';
import { answerOfAction } from '../../views/gamedays/countdown.ts';
import { parseStepRef } from '../../views/gamedays/plan.ts';
import { planWords } from '../../views/gamedays/planWords.ts';
import { answerModal, STEP_OBSERVATION, STEP_VETO_REASON, vetoModal } from '../../views/gamedays/stepForms.ts';
import { type Action, message, type Reply, type Submission, type SubmissionReply } from '../command.ts';
import { plainText } from './addStep.ts';

/** A plan step under way, from Slack: the countdown's buttons, the veto form and the hypothesis question. */

function stepRefFrom(value: string | undefined): StepRef {
  const ref = parseStepRef(value);
  if (!ref) throw new UserInputError(planWords.staleButton);
  return ref;
}

/** What a click on a countdown or a question answers. */
function answered(outcome: StepActionOutcome, done: (position: number) => string): Reply {
  if (outcome.kind === 'gone') return message(planWords.gone);
  if (outcome.kind === 'too late') return message(planWords.tooLate(outcome.position, outcome.step.state));
  return message(done(outcome.position));
}

/**
 * Start now, Delay 5 min and Skip on a countdown: anyone logged in, in the channel, may delay or
 * skip; Start now is a start, by whoever may run the step.
 */
export async function countdownAction(action: Action, { gamedays }: Services): Promise<Reply> {
  const ref = stepRefFrom(action.value);
  switch (action.actionId) {
    case 'countdown_start_now':
      return answered(await gamedays.countdown(action.actor, ref, 'start now'), planWords.startedNow);
    case 'countdown_delay':
      return answered(await gamedays.countdown(action.actor, ref, 'delay'), planWords.delayed);
    default:
      return answered(await gamedays.countdown(action.actor, ref, 'skip'), planWords.skipped);
  }
}

/** Veto on a countdown: the form that asks why. */
export async function openVeto(action: Action, { gamedays }: Services): Promise<Reply> {
  const ref = stepRefFrom(action.value);
  const plan = await gamedays.planOf(action.actor, ref);
  const step = plan.steps.find((s) => s.id === ref.stepId);
  if (!step) return message(planWords.gone);
  if (!mayTake(step, 'veto')) return message(planWords.tooLate(positionOf(plan, step.id), step.state));
  return { kind: 'openModal', view: vetoModal(action.value ?? '', step, positionOf(plan, step.id)) };
}

export async function submitVeto(submission: Submission, { gamedays }: Services): Promise<SubmissionReply> {
  const ref = parseStepRef(submission.privateMetadata);
  const reason = submission.inputs[STEP_VETO_REASON]?.replace(/\s+/g, ' ').trim();
  if (!ref) return { kind: 'errors', errors: { [STEP_VETO_REASON]: planWords.staleButton } };
  if (!reason) return { kind: 'errors', errors: { [STEP_VETO_REASON]: 'Say why, for the channel.' } };
  const outcome = await gamedays.veto(submission.actor, ref, reason);
  if (outcome.kind === 'too late')
    return {
      kind: 'errors',
      errors: { [STEP_VETO_REASON]: plainText(planWords.tooLate(outcome.position, outcome.step.state)) },
    };
  return { kind: 'clear' };
}

/** Held, Not held or Unsure on a question: the form for an observation. */
export async function openAnswer(action: Action, { gamedays }: Services): Promise<Reply> {
  const ref = stepRefFrom(action.value);
  const answer = answerOfAction[action.actionId] ?? 'unsure';
  const plan = await gamedays.planOf(action.actor, ref);
  const step = plan.steps.find((s) => s.id === ref.stepId);
  if (!step) return message(planWords.gone);
  if (step.answer) return message(planWords.alreadyAnswered);
  return {
    kind: 'openModal',
    view: answerModal(
      JSON.stringify({ ...JSON.parse(action.value ?? '{}'), a: answer }),
      step,
      positionOf(plan, step.id),
      answer,
    ),
  };
}

export async function submitAnswer(submission: Submission, { gamedays }: Services): Promise<SubmissionReply> {
  const ref = parseStepRef(submission.privateMetadata);
  const given = ref ? (JSON.parse(submission.privateMetadata) as { a?: unknown }).a : undefined;
  const answer = Object.values(answerOfAction).find((a) => a === given);
  if (!ref || !answer) return { kind: 'errors', errors: { [STEP_OBSERVATION]: planWords.staleButton } };
  const observation = submission.inputs[STEP_OBSERVATION]?.trim() || undefined;
  const outcome = await gamedays.answer(submission.actor, ref, answer, observation);
  if (outcome.kind === 'too late') return { kind: 'errors', errors: { [STEP_OBSERVATION]: planWords.alreadyAnswered } };
  return { kind: 'clear' };
}
