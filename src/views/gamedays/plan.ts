import type { KnownBlock } from '@slack/types';
import type { GameDayRecord } from '../../gamedays/gamedayRecord.ts';
import {
  type GameDayPlan,
  type HypothesisAnswer,
  answerWaitEnds,
  awaitedAnswer,
  type PlanStep,
  positionOf,
  type StepRef,
  type StepState,
} from '../../gamedays/plan.ts';
import { equivalentCommand, codeSpan } from '../attacks/attackPreview.ts';
import { stageLabel } from '../attacks/attackCard.ts';
import { savedAttackText } from '../attacks/savedAttacks.ts';
import {
  actions,
  button,
  buttonObject,
  context,
  escapeMrkdwn,
  limits,
  section,
  slackDate,
  truncate,
  plural,
} from '../blocks.ts';
import type { Message } from '../message.ts';
import { badged } from './gamedayWords.ts';

export const PLAN_ADD_STEP = 'plan_add_step';
export const PLAN_RUN_NEXT = 'plan_run_next';
export const PLAN_AUTO = 'plan_auto';
export const PLAN_MOVE_UP = 'plan_move_up';
export const PLAN_REMOVE = 'plan_remove';

/** Where a plan is: a channel's (drafted before its game day), or its running game day's. */
export interface PlanPlace {
  channel: string;
  gameDayId?: string | undefined;
}

export function planPlaceValue(place: PlanPlace): string {
  return JSON.stringify({ c: place.channel, ...(place.gameDayId ? { g: place.gameDayId } : {}) });
}

export function stepRefValue(ref: StepRef): string {
  return JSON.stringify({ c: ref.channel, g: ref.gameDayId, s: ref.stepId });
}

const idPattern = /^[A-Za-z0-9-]{1,64}$/;
const channelPattern = /^[CGD][A-Z0-9]{1,30}$/;

/** The plan a button names, or undefined unless it holds a channel id (and a game-day id). */
export function parsePlanPlace(value: string | undefined): PlanPlace | undefined {
  const data = buttonObject(value);
  const { c, g } = data ?? {};
  if (typeof c !== 'string' || !channelPattern.test(c)) return undefined;
  if (g !== undefined && (typeof g !== 'string' || !idPattern.test(g))) return undefined;
  return { channel: c, ...(g ? { gameDayId: g } : {}) };
}

/** The step a button names, or undefined unless it holds a channel, a game day and a step. */
export function parseStepRef(value: string | undefined): StepRef | undefined {
  const data = buttonObject(value);
  const { c, g, s } = data ?? {};
  return typeof c === 'string' &&
    channelPattern.test(c) &&
    typeof g === 'string' &&
    idPattern.test(g) &&
    typeof s === 'string' &&
    idPattern.test(s)
    ? { channel: c, gameDayId: g, stepId: s }
    : undefined;
}

export const stateEmoji: Record<StepState, string> = {
  planned: ':white_circle:',
  'counting down': ':hourglass_flowing_sand:',
  'awaiting approval': ':raised_hand:',
  running: ':large_green_circle:',
  ended: ':checkered_flag:',
  vetoed: ':no_entry:',
  skipped: ':fast_forward:',
  'not started': ':x:',
};

export const answerWords: Record<HypothesisAnswer, string> = {
  held: ':white_check_mark: held',
  'not held': ':x: did not hold',
  unsure: ':grey_question: unsure',
};

/** What became of a hypothesis, as a sentence: a person may be unsure, a hypothesis is not. */
export const answerText: Record<HypothesisAnswer, string> = {
  held: 'the hypothesis held',
  'not held': 'the hypothesis did not hold',
  unsure: 'unsure whether the hypothesis held',
};

/** What a step runs, in a few words: `*web-cpu*` or `*cpu*`, with its target. */
export function stepTitle(step: Pick<PlanStep, 'source' | 'request'>): string {
  return step.source.kind === 'saved' ? `*${escapeMrkdwn(step.source.name)}*` : `*${escapeMrkdwn(step.request.type)}*`;
}

/** The step's attack in full, as typed. */
export const stepCommand = (step: PlanStep) => codeSpan(truncate(equivalentCommand(step.request), 300));

/** The state of a step in words, with what decided it. */
export function stepStateText(step: PlanStep): string {
  const at = (iso: string) => slackDate(new Date(iso), '{time}');
  switch (step.state) {
    case 'counting down':
      return `counting down, starts ${at(step.countdown!.startsAt)}`;
    case 'running':
      return step.guid ? `running (${codeSpan(step.guid)})` : 'starting';
    case 'ended':
      return `ended · ${stepOutcome(step)}${step.answer ? ` · ${answerWords[step.answer.answer]}` : ' · hypothesis not answered yet'}`;
    case 'vetoed':
    case 'skipped':
      return stepOutcome(step);
    case 'not started':
      return `not started: ${step.notStarted!.reason}`;
    default:
      return step.state;
  }
}

/** A rehearsed step's outcome: it went through the start's checks, and nothing was created. */
export const rehearsedOutcome = ':performing_arts: rehearsed: nothing was created at the platform';

/** How a step's attack went, in words (plain enough for the report too). */
export function stepOutcome(step: PlanStep): string {
  switch (step.state) {
    case 'ended':
      if (step.rehearsed) return rehearsedOutcome;
      return step.ended ? stageLabel(step.ended.stage, step.ended.lifecycle) : 'ended';
    case 'vetoed':
      return `vetoed by <@${step.vetoed!.by}>: ${escapeMrkdwn(step.vetoed!.reason)}`;
    case 'skipped':
      return step.skipped?.by ? `skipped by <@${step.skipped.by}>` : 'not run: the game day ended during its countdown';
    case 'not started':
      return `did not start: ${step.notStarted!.reason}`;
    case 'running':
      return 'still running';
    default:
      return `not run (${step.state})`;
  }
}

/** One line per step: position, state, what it runs, the hypothesis. */
export function stepLine(plan: GameDayPlan, step: PlanStep): string {
  return `${positionOf(plan, step.id)}. ${stateEmoji[step.state]} ${stepTitle(step)} · _${escapeMrkdwn(truncate(step.hypothesis, 200))}_ · ${stepStateText(step)}`;
}

/** A wait in words: `90 s`, `5 min`, `1 h 30 min`. */
export function waitWords(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60 || seconds % 60) return `${seconds} s`;
  const minutes = seconds / 60;
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
}

/** What the automatic mode waits for after each attack. */
export const autoWaitText = (waitMs: number | undefined) =>
  waitMs === undefined
    ? 'the answer on its hypothesis'
    : `the answer on its hypothesis or ${waitWords(waitMs)}, whichever comes first`;

/** The automatic mode in words, for the card and the plan. */
export function autoText(plan: GameDayPlan): string | undefined {
  if (!plan.auto) return undefined;
  const session = `runs with <@${plan.auto.by.userId}>'s session`;
  if (!plan.paused) {
    if (!plan.steps.some((s) => s.state === 'planned'))
      return `:repeat: Automatic: no planned step is left; a step added to the plan counts down by itself (${session}).`;
    const awaited = awaitedAnswer(plan);
    if (awaited) {
      const ends = answerWaitEnds(plan, awaited);
      const until = ends === undefined ? '' : `, or until ${slackDate(new Date(ends), '{time_secs}')}`;
      return `:repeat: Automatic: the next step counts down once step ${positionOf(plan, awaited.id)}'s hypothesis is answered${until} (${session}).`;
    }
    return `:repeat: Automatic: when an attack ends, the next step counts down after ${autoWaitText(plan.auto.waitMs)}, if the guards read healthy (${session}).`;
  }
  const why = {
    guard: `guard *${escapeMrkdwn(plan.paused.detail)}* fired or is unhealthy`,
    veto: `step ${plan.paused.detail} was vetoed`,
    'not held': `the hypothesis of step ${plan.paused.detail} did not hold`,
    'not started': `step ${plan.paused.detail} did not start`,
    'not allowed': `<@${plan.auto.by.userId}>, whose session runs it, may not run step ${plan.paused.detail} (their platform role lacks \`EXPERIMENTS_RUN\` on its team)`,
    changed: plan.paused.change
      ? `saved attack *${escapeMrkdwn(plan.paused.detail)}* was changed by <@${plan.paused.change.by}> ${slackDate(new Date(plan.paused.change.at))} since it was planned, and now runs ${codeSpan(savedAttackText(plan.paused.change))}`
      : `saved attack *${escapeMrkdwn(plan.paused.detail)}* was deleted or saved anew since it was planned`,
  }[plan.paused.why];
  const next =
    plan.paused.why === 'changed'
      ? 'Remove that step and add it again to run the saved attack as it is now, then turn automatic mode on again.'
      : 'Run the next step by hand, or turn automatic mode on again.';
  return `:double_vertical_bar: Automatic mode paused: ${why}. ${next}`;
}

/** The plan's blocks on the game-day card: its steps (a section's worth) and the automatic mode. */
export function planCardBlocks(plan: GameDayPlan): KnownBlock[] {
  const lines = plan.steps.map((step) => stepLine(plan, step));
  const text = truncate(`*Plan* (${plural(plan.steps.length, 'step')})\n${lines.join('\n')}`, limits.sectionText);
  const auto = autoText(plan);
  return [section(text), ...(auto ? [context(auto)] : [])];
}

const runNextButton = (value: string) => button('Run next step', PLAN_RUN_NEXT, { value, style: 'primary' });

/** The card's plan buttons: Run next step while a step is planned, and Add step. */
export function planCardButtons(record: GameDayRecord & { id?: string }) {
  const value = planPlaceValue({ channel: record.channel, gameDayId: record.id });
  const planned = record.plan?.steps.some((s) => s.state === 'planned');
  return [...(planned ? [runNextButton(value)] : []), button('Add step', PLAN_ADD_STEP, { value })];
}

/** `gameday plan`: the plan with its buttons (Run next step, Automatic, Add step, and per step Move up and Remove). */
export function planMessage(p: {
  place: PlanPlace;
  plan: GameDayPlan;
  running: boolean;
  command: string;
  notice?: string | undefined;
  /** The running game day is a rehearsal. */
  rehearsal?: boolean | undefined;
}): Message {
  const { plan, place } = p;
  const value = planPlaceValue(place);
  const head = p.notice ? [section(p.notice)] : [];
  const where = p.rehearsal ? 'this rehearsal' : p.running ? 'this game day' : 'the next game day in this channel';
  const day = { rehearsal: p.rehearsal ? (true as const) : undefined };
  if (!plan.steps.length) {
    const text = `The plan of ${where} has no steps yet. Add one with *Add step*, or ${codeSpan(`${p.command} gameday step <saved attack> <hypothesis>`)}.`;
    return {
      text: badged(day, text.replace(/[*]/g, '')),
      blocks: [
        ...head,
        section(badged(day, text)),
        actions('plan_actions', [button('Add step', PLAN_ADD_STEP, { value })]),
      ],
    };
  }
  const blocks: KnownBlock[] = [
    ...head,
    section(badged(day, `*Plan of ${where}* (${plural(plan.steps.length, 'step')})`)),
  ];
  // Steps move only among those still to come: the first of them has nowhere up to go.
  const firstPlanned = plan.steps.find((s) => s.state === 'planned');
  for (const step of plan.steps.slice(0, 20)) {
    const ref = JSON.stringify({ ...JSON.parse(value), s: step.id });
    blocks.push(section(`${stepLine(plan, step)}\n${stepCommand(step)}`));
    if (step.state === 'planned')
      blocks.push(
        actions(`plan_step:${step.id}`, [
          ...(step === firstPlanned ? [] : [button('Move up', PLAN_MOVE_UP, { value: ref })]),
          button('Remove', PLAN_REMOVE, { value: ref, style: 'danger' }),
        ]),
      );
  }
  const auto = autoText(plan);
  if (auto) blocks.push(context(auto));
  const buttons = [button('Add step', PLAN_ADD_STEP, { value })];
  if (p.running) {
    if (plan.steps.some((s) => s.state === 'planned')) buttons.unshift(runNextButton(value));
    const on = !(plan.auto && !plan.paused);
    buttons.push(
      button(`Automatic ${on ? 'on' : 'off'}`, PLAN_AUTO, { value: JSON.stringify({ ...JSON.parse(value), on }) }),
    );
  }
  blocks.push(actions('plan_actions', buttons));
  return {
    text: badged(day, `Plan: ${plural(plan.steps.length, 'step')}`),
    blocks: blocks.slice(0, limits.messageBlocks),
  };
}
