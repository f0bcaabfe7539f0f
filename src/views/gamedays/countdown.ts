import type { KnownBlock } from '@slack/types';
import type { GameDayRecord } from '../../gamedays/gamedayRecord.ts';
import { type HypothesisAnswer, type PlanStep, positionOf, type StepRef } from '../../gamedays/plan.ts';
import { argsText } from '../attacks/attackCard.ts';
import { blastRadiusLine } from '../attacks/blastRadius.ts';
import { ruleText } from '../guardrails/approval.ts';
import { badged } from './gamedayWords.ts';
import { describeTarget } from '../attacks/attackPreview.ts';
import { actions, button, context, escapeMrkdwn, section, slackDate } from '../blocks.ts';
import type { Message } from '../message.ts';
import {
  answerText,
  answerWords,
  stateEmoji,
  stepCommand,
  stepOutcome,
  stepRefValue,
  stepStateText,
  stepTitle,
} from './plan.ts';

export const COUNTDOWN_START_NOW = 'countdown_start_now';
export const COUNTDOWN_DELAY = 'countdown_delay';
export const COUNTDOWN_SKIP = 'countdown_skip';
export const COUNTDOWN_VETO = 'countdown_veto';
export const STEP_HELD = 'step_held';
export const STEP_NOT_HELD = 'step_not_held';
export const STEP_UNSURE = 'step_unsure';

/** The answer each question button gives. */
export const answerOfAction: Record<string, HypothesisAnswer> = {
  [STEP_HELD]: 'held',
  [STEP_NOT_HELD]: 'not held',
  [STEP_UNSURE]: 'unsure',
};

const refOf = (record: GameDayRecord & { id?: string }, step: PlanStep): StepRef => ({
  channel: record.channel,
  gameDayId: record.id ?? '',
  stepId: step.id,
});

/** A time to go in words: `45 s`, `5 min`, `5 min 10 s`. */
function inWords(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  if (minutes < 2) return `${seconds} s`;
  return `${minutes} min${rest ? ` ${rest} s` : ''}`;
}

/** Skip and Veto, while a step may still be stopped. */
const skipOrVeto = (value: string) => [
  button('Skip', COUNTDOWN_SKIP, { value }),
  button('Veto', COUNTDOWN_VETO, { value, style: 'danger' }),
];

/** The countdown card of a step, in the channel: until zero with Start now, Delay, Skip and Veto; then what became of it. */
export function countdownMessage(record: GameDayRecord, step: PlanStep, now: number): Message {
  const plan = record.plan ?? { steps: [step] };
  const position = positionOf(plan, step.id) || 1;
  const total = plan.steps.length || 1;
  const target = describeTarget(step.request.target, step.teamName);
  const what = `${stepTitle(step)}: ${escapeMrkdwn(step.request.type)} on ${escapeMrkdwn(target)}`;
  const heading = badged(record, `*Step ${position} of ${total}*: ${what}`);
  const startsAt = new Date(step.countdown!.startsAt);
  const hypothesis = `Hypothesis: _${escapeMrkdwn(step.hypothesis)}_`;
  const value = stepRefValue(refOf(record, step));
  const blocks: KnownBlock[] = [];
  let text: string;
  if (step.state === 'counting down') {
    const seconds = Math.max(0, Math.round((startsAt.getTime() - now) / 1000));
    const startsIn = inWords(seconds);
    const plainWhat = `${step.source.kind === 'saved' ? `${step.source.name}: ` : ''}${step.request.type} on ${target}`;
    text = badged(record, escapeMrkdwn(`Step ${position} of ${total}: ${plainWhat}, starts in ${startsIn}`));
    blocks.push(
      section(`:hourglass_flowing_sand: ${heading}, starts in ${startsIn} (${slackDate(startsAt, '{time_secs}')})`),
      section(`${hypothesis}\n${stepCommand(step)}`),
      context(
        `Run by <@${step.countdown!.runBy.userId}>, whose session ${record.rehearsal ? 'rehearses it: it goes through every check of a start, and nothing is created at the platform' : 'starts it'}. Anyone here may delay, skip or veto it.`,
      ),
      actions('countdown_actions', [
        button('Start now', COUNTDOWN_START_NOW, { value, style: 'primary' }),
        button('Delay 5 min', COUNTDOWN_DELAY, { value }),
        ...skipOrVeto(value),
      ]),
    );
  } else {
    text = badged(record, `Step ${position} of ${total}: ${step.rehearsed ? 'rehearsed' : step.state}`);
    blocks.push(section(`${stateEmoji[step.state]} ${heading}\n${stepStateText(step)}`), section(hypothesis));
    // Waiting for a second person, it may still be skipped or vetoed: its request then closes.
    if (step.state === 'awaiting approval') blocks.push(actions('countdown_actions', skipOrVeto(value)));
  }
  return { text, blocks };
}

/** The question asked in the game day's thread when a step's attack has ended. */
export function hypothesisQuestion(record: GameDayRecord & { id?: string }, step: PlanStep): Message {
  const position = record.plan ? positionOf(record.plan, step.id) : 0;
  const outcome = stepOutcome(step);
  const head = badged(
    record,
    `:microscope: Step ${position} (${stepTitle(step)}) has ended · ${outcome}. Did the hypothesis hold?\n_${escapeMrkdwn(step.hypothesis)}_`,
  );
  if (step.answer) {
    const a = step.answer;
    return {
      text: badged(record, `Step ${position}: ${answerText[a.answer]}`),
      blocks: [
        section(head),
        section(
          `${answerWords[a.answer]}, said <@${a.by}> ${slackDate(new Date(a.at))}${a.observation ? `: ${escapeMrkdwn(a.observation)}` : ''}`,
        ),
      ],
    };
  }
  const value = stepRefValue(refOf(record, step));
  return {
    text: badged(record, `Step ${position} has ended. Did the hypothesis hold?`),
    blocks: [
      section(head),
      actions('step_question', [
        button('Held', STEP_HELD, { value, style: 'primary' }),
        button('Not held', STEP_NOT_HELD, { value, style: 'danger' }),
        button('Unsure', STEP_UNSURE, { value }),
      ]),
    ],
  };
}

/**
 * What a rehearsed step would have started, told in the rehearsal's thread instead of an attack
 * card: its attack, the clients its target matched at zero, the second person it would have
 * needed (nobody was asked), and that nothing was created.
 */
export function rehearsedStepMessage(record: GameDayRecord, step: PlanStep): Message {
  const plan = record.plan ?? { steps: [step] };
  const { targets, rule } = step.rehearsed ?? {};
  const on = targets
    ? blastRadiusLine(targets)
    : `${escapeMrkdwn(describeTarget(step.request.target, step.teamName))}, which the platform resolves only when it creates the attack`;
  const length = step.request.lengthSeconds === undefined ? '' : ` for ${step.request.lengthSeconds} s`;
  const approval = rule
    ? ` · would need approval from a second person with \`EXPERIMENTS_RUN\` on team *${escapeMrkdwn(step.teamName)}*, because ${ruleText(rule)}; nobody was asked`
    : '';
  const what = `*${escapeMrkdwn(step.request.type)}* ${argsText(step.request.args)}${length}`;
  const text = `Step ${positionOf(plan, step.id) || 1} of ${plan.steps.length || 1} (${stepTitle(step)}) would start ${what} on ${on}${approval} · nothing was created at the platform`;
  return { text: badged(record, text) };
}
