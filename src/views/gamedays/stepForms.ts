import type { KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { SavedAttack } from '../../attacks/saved.ts';
import type { HypothesisAnswer, PlanStep } from '../../gamedays/plan.ts';
import { escapeMrkdwn, input, limits, modal, plain, section } from '../blocks.ts';
import { stepTitle } from './plan.ts';

export const PLAN_STEP_VIEW = 'plan_step';
export const STEP_SAVED = 'step_saved';
export const STEP_SPEC = 'step_spec';
export const STEP_HYPOTHESIS = 'step_hypothesis';
export const STEP_GUARDS = 'step_guards';
export const STEP_VETO_VIEW = 'step_veto';
export const STEP_VETO_REASON = 'step_veto_reason';
export const STEP_ANSWER_VIEW = 'step_answer';
export const STEP_OBSERVATION = 'step_observation';

/** The Add step form: a saved attack of the team, or an attack typed as after `attack`; the hypothesis; guards. */
export function addStepModal(p: {
  saved: readonly SavedAttack[];
  teamName: string;
  askGuards: boolean;
  privateMetadata: string;
  values?: Record<string, string | undefined> | undefined;
}): ModalView {
  const options: PlainTextOption[] = p.saved.slice(0, limits.selectOptions).map((s) => ({
    text: plain(s.name, limits.optionText),
    value: s.name,
  }));
  const blocks: KnownBlock[] = [
    section(
      `A step of the plan: an attack of team *${escapeMrkdwn(p.teamName)}* and what you expect to hold while it runs.`,
    ),
  ];
  if (options.length)
    blocks.push(
      input(
        STEP_SAVED,
        'Saved attack',
        { type: 'static_select', action_id: STEP_SAVED, placeholder: plain('Choose a saved attack'), options },
        { optional: true },
      ),
    );
  blocks.push(
    input(
      STEP_SPEC,
      options.length ? 'Or an attack' : 'Attack',
      {
        type: 'plain_text_input',
        action_id: STEP_SPEC,
        placeholder: plain('cpu -l 60 -c 1 --target-tags role=web', 150),
      },
      { optional: true, hint: 'As you would type it after attack: type, its flags, target flags.' },
    ),
    input(
      STEP_HYPOTHESIS,
      'Hypothesis',
      {
        type: 'plain_text_input',
        action_id: STEP_HYPOTHESIS,
        multiline: true,
        max_length: 500,
        placeholder: plain('Checkout stays under 500 ms p99 while one web host burns CPU', 150),
      },
      { hint: 'What should hold while the attack runs. The channel is asked afterwards whether it did.' },
    ),
  );
  if (p.askGuards)
    blocks.push(
      input(
        STEP_GUARDS,
        'Guards that must be healthy',
        { type: 'plain_text_input', action_id: STEP_GUARDS, placeholder: plain('a:1234567, b:CheckoutErrorRate', 150) },
        {
          optional: true,
          hint: 'The step starts only while they read healthy, and they halt its attack when they fire.',
        },
      ),
    );
  return modal(PLAN_STEP_VIEW, 'Add a step', blocks, {
    submit: 'Add step',
    close: 'Cancel',
    privateMetadata: p.privateMetadata,
  });
}

/** The Veto form: why, which the channel reads. */
export function vetoModal(privateMetadata: string, step: PlanStep, position: number): ModalView {
  return modal(
    STEP_VETO_VIEW,
    'Veto this step',
    [
      section(`Step ${position}, ${stepTitle(step)}, will not run. Say why: the channel and the summary show it.`),
      input(STEP_VETO_REASON, 'Why', { type: 'plain_text_input', action_id: STEP_VETO_REASON, max_length: 500 }),
    ],
    { submit: 'Veto', close: 'Cancel', privateMetadata },
  );
}

/** The answer form: an observation, optional. */
export function answerModal(
  privateMetadata: string,
  step: PlanStep,
  position: number,
  answer: HypothesisAnswer,
): ModalView {
  return modal(
    STEP_ANSWER_VIEW,
    'Hypothesis',
    [
      section(
        `Step ${position}, ${stepTitle(step)}: ${answer === 'held' ? 'the hypothesis *held*' : answer === 'not held' ? 'the hypothesis *did not hold*' : '*unsure* whether the hypothesis held'}.\n_${escapeMrkdwn(step.hypothesis)}_`,
      ),
      input(
        STEP_OBSERVATION,
        'Observation',
        { type: 'plain_text_input', action_id: STEP_OBSERVATION, multiline: true, max_length: 1000 },
        { optional: true, hint: 'What you saw, for the timeline and the summary.' },
      ),
    ],
    { submit: 'Answer', close: 'Cancel', privateMetadata },
  );
}
