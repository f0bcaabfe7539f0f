import type { KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { SavedAttack } from '../../attacks/saved.ts';
import type { GameDayRecord, GameDayStepEvent } from '../../gamedays/gamedayRecord.ts';
import {
  type GameDayPlan,
  type HypothesisAnswer,
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
  input,
  limits,
  modal,
  plain,
  section,
  slackDate,
  truncate,
} from '../blocks.ts';
import type { Message } from '../message.ts';
import { plural } from '../plural.ts';
import { describeTarget } from '../attacks/target.ts';
import type { StepNotStartedReason } from '../../gamedays/planStepState.ts';

export const PLAN_ADD_STEP = 'plan_add_step';
export const PLAN_RUN_NEXT = 'plan_run_next';
export const PLAN_AUTO = 'plan_auto';
export const PLAN_MOVE_UP = 'plan_move_up';
export const PLAN_REMOVE = 'plan_remove';
export const COUNTDOWN_START_NOW = 'countdown_start_now';
export const COUNTDOWN_DELAY = 'countdown_delay';
export const COUNTDOWN_SKIP = 'countdown_skip';
export const COUNTDOWN_VETO = 'countdown_veto';
export const STEP_HELD = 'step_held';
export const STEP_NOT_HELD = 'step_not_held';
export const STEP_UNSURE = 'step_unsure';

export const PLAN_STEP_VIEW = 'plan_step';
export const STEP_SAVED = 'step_saved';
export const STEP_SPEC = 'step_spec';
export const STEP_HYPOTHESIS = 'step_hypothesis';
export const STEP_GUARDS = 'step_guards';
export const STEP_VETO_VIEW = 'step_veto';
export const STEP_VETO_REASON = 'step_veto_reason';
export const STEP_ANSWER_VIEW = 'step_answer';
export const STEP_OBSERVATION = 'step_observation';

/** The answer each question button gives. */
export const answerOfAction: Record<string, HypothesisAnswer> = {
  [STEP_HELD]: 'held',
  [STEP_NOT_HELD]: 'not held',
  [STEP_UNSURE]: 'unsure',
};

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

const stateEmoji: Record<StepState, string> = {
  planned: ':white_circle:',
  'counting down': ':hourglass_flowing_sand:',
  'awaiting approval': ':raised_hand:',
  running: ':large_green_circle:',
  ended: ':checkered_flag:',
  vetoed: ':no_entry:',
  skipped: ':fast_forward:',
  'not started': ':x:',
};

const answerWords: Record<HypothesisAnswer, string> = {
  held: ':white_check_mark: held',
  'not held': ':x: did not hold',
  unsure: ':grey_question: unsure',
};

/** What a step runs, in a few words: `*web-cpu*` or `*cpu*`, with its target. */
export function stepTitle(step: Pick<PlanStep, 'source' | 'request'>): string {
  return step.source.kind === 'saved' ? `*${escapeMrkdwn(step.source.name)}*` : `*${escapeMrkdwn(step.request.type)}*`;
}

/** The step's attack in full, as typed. */
const stepCommand = (step: PlanStep) => codeSpan(truncate(equivalentCommand(step.request), 300));

/** The state of a step in words, with what decided it. */
export function stepStateText(step: PlanStep): string {
  const at = (iso: string) => slackDate(new Date(iso), '{time}');
  switch (step.state) {
    case 'counting down':
      return `counting down, starts ${at(step.countdown!.startsAt)}`;
    case 'running':
      return step.guid ? `running (${codeSpan(step.guid)})` : 'starting';
    case 'ended': {
      const outcome = step.ended ? stageLabel(step.ended.stage, step.ended.lifecycle) : 'ended';
      return `ended · ${outcome}${step.answer ? ` · ${answerWords[step.answer.answer]}` : ' · hypothesis not answered yet'}`;
    }
    case 'vetoed':
      return `vetoed by <@${step.vetoed!.by}>: ${escapeMrkdwn(step.vetoed!.reason)}`;
    case 'skipped':
      return step.skipped?.by ? `skipped by <@${step.skipped.by}>` : 'not run: the game day ended during its countdown';
    case 'not started':
      return `not started: ${step.notStarted!.reason}`;
    default:
      return step.state;
  }
}

/** One line per step: position, state, what it runs, the hypothesis. */
export function stepLine(plan: GameDayPlan, step: PlanStep): string {
  return `${positionOf(plan, step.id)}. ${stateEmoji[step.state]} ${stepTitle(step)} · _${escapeMrkdwn(truncate(step.hypothesis, 200))}_ · ${stepStateText(step)}`;
}

/** The automatic mode in words, for the card and the plan. */
export function autoText(plan: GameDayPlan): string | undefined {
  if (!plan.auto) return undefined;
  if (!plan.paused)
    return `:repeat: Automatic: the next step counts down once the previous attack has ended with its guards healthy (runs with <@${plan.auto.by.userId}>'s session).`;
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

/** The card's plan buttons: Run next step while a step is planned, and Add step. */
export function planCardButtons(record: GameDayRecord & { id?: string }) {
  const value = planPlaceValue({ channel: record.channel, gameDayId: record.id });
  const planned = record.plan?.steps.some((s) => s.state === 'planned');
  return [
    ...(planned ? [button('Run next step', PLAN_RUN_NEXT, { value, style: 'primary' })] : []),
    button('Add step', PLAN_ADD_STEP, { value }),
  ];
}

/** `gameday plan`: the plan with its buttons (Run next step, Automatic, Add step, and per step Move up and Remove). */
export function planMessage(p: {
  place: PlanPlace;
  plan: GameDayPlan;
  running: boolean;
  command: string;
  notice?: string | undefined;
}): Message {
  const { plan, place } = p;
  const value = planPlaceValue(place);
  const head = p.notice ? [section(p.notice)] : [];
  const where = p.running ? 'this game day' : 'the next game day in this channel';
  if (!plan.steps.length) {
    const text = `The plan of ${where} has no steps yet. Add one with *Add step*, or ${codeSpan(`${p.command} gameday step <saved attack> <hypothesis>`)}.`;
    return {
      text: text.replace(/[*]/g, ''),
      blocks: [...head, section(text), actions('plan_actions', [button('Add step', PLAN_ADD_STEP, { value })])],
    };
  }
  const blocks: KnownBlock[] = [...head, section(`*Plan of ${where}* (${plural(plan.steps.length, 'step')})`)];
  for (const step of plan.steps.slice(0, 20)) {
    const ref = JSON.stringify({ c: place.channel, ...(place.gameDayId ? { g: place.gameDayId } : {}), s: step.id });
    blocks.push(section(`${stepLine(plan, step)}\n${stepCommand(step)}`));
    if (step.state === 'planned')
      blocks.push(
        actions(`plan_step:${step.id}`, [
          button('Move up', PLAN_MOVE_UP, { value: ref }),
          button('Remove', PLAN_REMOVE, { value: ref, style: 'danger' }),
        ]),
      );
  }
  const auto = autoText(plan);
  if (auto) blocks.push(context(auto));
  const buttons = [button('Add step', PLAN_ADD_STEP, { value })];
  if (p.running) {
    if (plan.steps.some((s) => s.state === 'planned'))
      buttons.unshift(button('Run next step', PLAN_RUN_NEXT, { value, style: 'primary' }));
    buttons.push(
      plan.auto && !plan.paused
        ? button('Automatic off', PLAN_AUTO, { value: JSON.stringify({ ...JSON.parse(value), on: false }) })
        : button('Automatic on', PLAN_AUTO, { value: JSON.stringify({ ...JSON.parse(value), on: true }) }),
    );
  }
  blocks.push(actions('plan_actions', buttons));
  return { text: `Plan: ${plural(plan.steps.length, 'step')}`, blocks: blocks.slice(0, limits.messageBlocks) };
}

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

/** The countdown card of a step, in the channel: until zero with Start now, Delay, Skip and Veto; then what became of it. */
export function countdownMessage(record: GameDayRecord, step: PlanStep, now: number): Message {
  const plan = record.plan ?? { steps: [step] };
  const position = positionOf(plan, step.id) || 1;
  const total = plan.steps.length || 1;
  const target = describeTarget(step.request.target, step.teamName);
  const what = `${stepTitle(step)}: ${escapeMrkdwn(step.request.type)} on ${escapeMrkdwn(target)}`;
  const heading = `*Step ${position} of ${total}*: ${what}`;
  const startsAt = new Date(step.countdown!.startsAt);
  const hypothesis = `Hypothesis: _${escapeMrkdwn(step.hypothesis)}_`;
  const blocks: KnownBlock[] = [];
  let text: string;
  if (step.state === 'counting down') {
    const seconds = Math.max(0, Math.round((startsAt.getTime() - now) / 1000));
    const plainWhat = `${step.source.kind === 'saved' ? `${step.source.name}: ` : ''}${step.request.type} on ${target}`;
    text = escapeMrkdwn(`Step ${position} of ${total}: ${plainWhat}, starts in ${seconds} s`);
    blocks.push(
      section(`:hourglass_flowing_sand: ${heading}, starts in ${seconds} s (${slackDate(startsAt, '{time_secs}')})`),
      section(`${hypothesis}\n${stepCommand(step)}`),
      context(
        `Run by <@${step.countdown!.runBy.userId}>, whose session starts it. Anyone here may delay, skip or veto it.`,
      ),
      actions('countdown_actions', [
        button('Start now', COUNTDOWN_START_NOW, { value: stepRefValue(refOf(record, step)), style: 'primary' }),
        button('Delay 5 min', COUNTDOWN_DELAY, { value: stepRefValue(refOf(record, step)) }),
        button('Skip', COUNTDOWN_SKIP, { value: stepRefValue(refOf(record, step)) }),
        button('Veto', COUNTDOWN_VETO, { value: stepRefValue(refOf(record, step)), style: 'danger' }),
      ]),
    );
  } else {
    text = `Step ${position} of ${total}: ${step.state}`;
    blocks.push(section(`${stateEmoji[step.state]} ${heading}\n${stepStateText(step)}`), section(hypothesis));
    // Waiting for a second person, it may still be skipped or vetoed: its request then closes.
    if (step.state === 'awaiting approval')
      blocks.push(
        actions('countdown_actions', [
          button('Skip', COUNTDOWN_SKIP, { value: stepRefValue(refOf(record, step)) }),
          button('Veto', COUNTDOWN_VETO, { value: stepRefValue(refOf(record, step)), style: 'danger' }),
        ]),
      );
  }
  return { text, blocks };
}

const refOf = (record: GameDayRecord & { id?: string }, step: PlanStep): StepRef => ({
  channel: record.channel,
  gameDayId: record.id ?? '',
  stepId: step.id,
});

/** The question asked in the game day's thread when a step's attack has ended. */
export function hypothesisQuestion(record: GameDayRecord & { id?: string }, step: PlanStep): Message {
  const position = record.plan ? positionOf(record.plan, step.id) : 0;
  const outcome = step.ended ? stageLabel(step.ended.stage, step.ended.lifecycle) : 'ended';
  const head = `:microscope: Step ${position} (${stepTitle(step)}) has ended · ${outcome}. Did the hypothesis hold?\n_${escapeMrkdwn(step.hypothesis)}_`;
  if (step.answer) {
    const a = step.answer;
    return {
      text: `Step ${position}: the hypothesis ${a.answer === 'held' ? 'held' : a.answer === 'not held' ? 'did not hold' : 'is unsure'}`,
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
    text: `Step ${position} has ended. Did the hypothesis hold?`,
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
        `Step ${position}, ${stepTitle(step)}: the hypothesis ${answer === 'held' ? '*held*' : answer === 'not held' ? '*did not hold*' : 'is *unsure*'}.\n_${escapeMrkdwn(step.hypothesis)}_`,
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

/** A step's line in the game day's timeline. */
export function stepTimelineLine(e: GameDayStepEvent): string {
  const step = e.position ? `step ${e.position}${e.title ? ` (*${escapeMrkdwn(e.title)}*)` : ''}` : 'a step';
  const who = e.by ? `<@${e.by}>` : 'Faultline';
  switch (e.what) {
    case 'added':
      return `:heavy_plus_sign: ${who} added ${step}: _${escapeMrkdwn(truncate(e.hypothesis ?? '', 300))}_`;
    case 'counting down':
      return `:hourglass_flowing_sand: ${who} ran ${step}: it starts ${slackDate(new Date(e.startsAt!), '{time_secs}')} unless someone vetoes it`;
    case 'delayed':
      return `:alarm_clock: ${who} delayed ${step} to ${slackDate(new Date(e.startsAt!), '{time_secs}')}`;
    case 'vetoed':
      return `:no_entry: ${who} vetoed ${step}: ${escapeMrkdwn(e.reason ?? '')}`;
    case 'skipped':
      return `:fast_forward: ${who} skipped ${step}`;
    case 'not started':
      return `:x: ${step.charAt(0).toUpperCase()}${step.slice(1)} did not start: ${e.reason}`;
    case 'awaiting approval':
      return `:raised_hand: ${step.charAt(0).toUpperCase()}${step.slice(1)} needs a second person's approval before it starts`;
    case 'answered':
      return `:microscope: ${who} on ${step}: the hypothesis ${e.answer === 'held' ? 'held' : e.answer === 'not held' ? 'did not hold' : 'is unsure'}${e.observation ? `: ${escapeMrkdwn(truncate(e.observation, 500))}` : ''}`;
    case 'cancelled':
      return `:leftwards_arrow_with_hook: The countdown of ${step} was stopped: a hypothesis did not hold, so the automatic mode paused`;
    case 'automatic on':
      return `:repeat: ${who} turned the automatic mode on`;
    case 'automatic off':
      return `:double_vertical_bar: ${who} turned the automatic mode off`;
    case 'paused':
      return `:double_vertical_bar: The automatic mode paused: ${escapeMrkdwn(e.reason ?? '')}${e.title ? ` (${escapeMrkdwn(e.title)})` : ''}`;
  }
}

/** The summary's steps, one line each: hypothesis, how its attack ended, held or not, observation, tickets. */
export function summaryStepLines(record: GameDayRecord): string[] {
  const plan = record.plan;
  if (!plan) return [];
  return plan.steps.map((step) => {
    const tickets = step.guid ? record.tickets.filter((t) => t.guid === step.guid).map((t) => t.key) : [];
    const parts = [
      `${positionOf(plan, step.id)}. ${stepTitle(step)} · _${escapeMrkdwn(truncate(step.hypothesis, 200))}_`,
      stepOutcome(step),
      step.answer ? answerWords[step.answer.answer] : step.state === 'ended' ? 'not answered' : '',
      step.answer?.observation ? `“${escapeMrkdwn(truncate(step.answer.observation, 200))}”` : '',
      tickets.length ? `tickets ${tickets.map(escapeMrkdwn).join(', ')}` : '',
    ];
    return parts.filter(Boolean).join(' · ');
  });
}

/** How a step's attack went, in words (plain enough for the report too). */
export function stepOutcome(step: PlanStep): string {
  switch (step.state) {
    case 'ended':
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

export const planWords = {
  added: (position: number, running: boolean) =>
    `:heavy_plus_sign: Added step ${position} to the plan of ${running ? 'this game day' : 'the next game day in this channel'}.`,
  moved: 'Moved.',
  noSuchStep: (position: number) => `The plan has no step ${position}.`,
  notPlanned: 'That step has already run (or is running); only steps still to come move or go.',
  removed: 'Removed the step from the plan.',
  nothingPlanned: 'Every step of the plan has run. Add one with Add step.',
  notYourTeam: (position: number, teamName: string) =>
    `Step ${position} runs in team *${escapeMrkdwn(teamName)}*, which is not one of yours.`,
  busy: (position: number, state: string) => `Step ${position} is ${state}: one step runs at a time.`,
  countingDown: (position: number, total: number) =>
    `:hourglass_flowing_sand: Step ${position} of ${total} counts down in the channel.`,
  noGameDay: (command: string) =>
    `Start the game day first (${codeSpan(`${command} gameday start <title>`)}): steps run only while it runs. The plan is kept for it.`,
  autoOn:
    ':repeat: Automatic mode is on: each next step counts down once the previous attack has ended with its guards healthy.',
  autoOff: ':double_vertical_bar: Automatic mode is off: steps run when someone presses Run next step.',
  tooLate: (position: number, state: string) => `Too late: step ${position} is ${state} already.`,
  gone: 'That step is no longer in the plan.',
  vetoed: (position: number) => `:no_entry: Step ${position} is vetoed.`,
  skipped: (position: number) => `:fast_forward: Step ${position} is skipped.`,
  delayed: (position: number) => `:alarm_clock: Step ${position} is delayed by 5 minutes.`,
  startedNow: (position: number) => `Step ${position} starts now, with your session.`,
  /** A plan change or a start refused: the person may not run attacks in the step's team. */
  notAllowed: (teamName: string, inTeam: boolean, command: string) =>
    inTeam
      ? `You cannot change or run steps of team *${escapeMrkdwn(teamName)}*: your platform role lacks the \`EXPERIMENTS_RUN\` privilege on it, so nothing was changed. Ask an owner of the team for a role that has it, or ask someone who has it.`
      : `You cannot change or run steps of team *${escapeMrkdwn(teamName)}*: your platform login is not in that team, so nothing was changed. Log in as someone in it with ${codeSpan(`${command} login`)}.`,
  answered: (position: number) => `:microscope: Thanks: your answer for step ${position} is in the timeline.`,
  alreadyAnswered: 'Someone has already answered that question; the answer is in the thread.',
  needHypothesis: 'Say what should hold while the attack runs.',
  needAttack: 'Choose a saved attack, or give an attack.',
  notBoth: 'Choose a saved attack or give an attack, not both.',
  staleButton: 'That button no longer names a step of a plan. Run the gameday plan command again.',
  noStepWords: (command: string) =>
    `Give the saved attack, then the hypothesis: ${codeSpan(`${command} gameday step web-cpu checkout stays under 500 ms p99`)}; or an attack with --attack: ${codeSpan(`${command} gameday step --attack "cpu -l 60 --target-tags role=web" checkout stays up`)}.`,
  /** Why a step could not start before its attack was tried. */
  runnerGone: (reason: StepNotStartedReason, who: string): string =>
    ({
      session: `the session of <@${who}>, who pressed Run, has ended: they log in again and run the step again`,
      team: `<@${who}>, who pressed Run, is no longer in the step's team`,
      privilege: `the platform role of <@${who}>, who pressed Run, no longer has \`EXPERIMENTS_RUN\` on the step's team`,
      rejected: `<@${who}> rejected the approval it needed`,
      expired: 'nobody approved it within 15 minutes',
      interrupted: 'Faultline stopped before it could start it',
    })[reason],
};
