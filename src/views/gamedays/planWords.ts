import type { StepNotStartedReason } from '../../gamedays/planStepState.ts';
import type { GameDayRecord, GameDayStepEvent } from '../../gamedays/gamedayRecord.ts';
import { positionOf } from '../../gamedays/plan.ts';
import { codeSpan } from '../attacks/attackPreview.ts';
import { escapeMrkdwn, slackDate, truncate } from '../blocks.ts';
import { answerText, answerWords, autoWaitText, stepOutcome, stepTitle } from './plan.ts';

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
      return `:microscope: ${who} on ${step}: ${answerText[e.answer ?? 'unsure']}${e.observation ? `: ${escapeMrkdwn(truncate(e.observation, 500))}` : ''}`;
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

export const planWords = {
  added: (position: number, running: boolean) =>
    `:heavy_plus_sign: Added step ${position} to the plan of ${running ? 'this game day' : 'the next game day in this channel'}.`,
  moved: 'Moved.',
  inPlace: (position: number) =>
    `Step ${position} stays where it is: it is already there, and steps move only among those still to come.`,
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
  autoOn: (waitMs: number | undefined) =>
    `:repeat: Automatic mode is on: when an attack ends, the next step counts down after ${autoWaitText(waitMs)}, if the guards read healthy.`,
  autoWaitAlone: '`--wait` goes with `auto on`: how long the automatic mode waits for the answer on a hypothesis.',
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
