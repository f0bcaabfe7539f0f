import type { Freeze, FreezeHalting } from '../../guardrails/freezes.ts';
import type { ApprovalClosing } from '../../guardrails/approvals.ts';
import type { StartNews } from '../../attacks/start.ts';
import { errorInBrief } from '../errorReply.ts';
import type { GuardsUnknownError } from '../../guardrails/guards.ts';
import { guardRefusalText } from '../guardrails/guards.ts';
import { frozenAnnouncement } from '../guardrails/freeze.ts';
import type { Message } from '../message.ts';
import { loginPromptBlocks } from '../login/login.ts';
import { plural } from '../blocks.ts';

/**
 * A step's error as Workflow Builder shows it: one plain sentence or two, without Slack's
 * mrkdwn marks and without a slash command's usage line, which a workflow has no use for.
 */
export function stepErrorText(words: string): string {
  return words
    .split('\n')
    .filter((line) => !line.startsWith('Usage:'))
    .join(' ')
    .replace(/:[a-z][a-z0-9_+-]*:\s*/g, '')
    .replace(/[*`]/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}

/** The direct message to a person a step could not act for: why, and the way to log in. */
export function stepLoginPrompt(stepTitle: string): Message {
  const words = `A workflow asked Faultline to run “${stepTitle}” for you, but you are not logged in to the platform. Log in, then run the workflow again.`;
  return { text: words, blocks: loginPromptBlocks(words) };
}

/** The step's error when its person is not logged in. */
export const stepNotLoggedInText =
  'The person who ran this workflow is not logged in to Faultline. Faultline sent them a direct message with a Log in button; log in, then run the workflow again.';

/**
 * The step's error when Slack did not vouch for its person: a Person typed in by a builder, as an
 * app configuration on an older manifest allows. Nothing was done, and nobody was messaged.
 */
export const stepPersonUnvouchedText =
  'Faultline acts only for the Person who used this workflow, as Slack passes them, and this step was given a Person some other way, so it did nothing. Ask whoever runs Faultline to update the app in Slack from its current manifest.yml, where Slack fills Person in itself.';

export const stepRestartingText = 'Faultline was restarting and did not run this step. Run the workflow again.';

export const stepFailedText =
  'Faultline could not finish this step. It has been logged; run the workflow again, and tell whoever runs Faultline if it keeps happening.';

export const stepReasonMissingText = 'Give a reason: everyone refused a start, or reading the halt, sees it.';
export const stepReasonTooLongText = 'Keep the reason under 300 characters.';
export const stepTitleMissingText = 'Give the game day a title of at most 150 characters.';
export const stepScopeBothText = 'Name one team, or choose every team, not both.';

/** A freeze that stands but could not halt all that ran: the step fails so people see it. */
export function stepFreezeHaltFailedText(
  userId: string,
  freeze: Freeze,
  halting: FreezeHalting,
  command: string,
): string {
  return stepErrorText(frozenAnnouncement(userId, freeze, halting, command));
}

/** A Halt all that could not halt or read everything: what it did halt, and what is left to do. */
export function stepHaltIncompleteText(
  team: string,
  halted: number,
  failed: string[],
  unread: boolean,
  command: string,
): string {
  const left = failed.length ? `could not halt ${failed.join(', ')}` : `could not read all of ${team}'s attacks`;
  const done = halted ? `Halted ${plural(halted, 'attack')} in ${team}, but ${left}` : `Faultline ${left}`;
  const still = unread && failed.length ? ` and could not read all of ${team}'s attacks` : '';
  return `${done}${still}. Halt them from the platform's web UI, or with ${command} halt all.`;
}

export function stepGameDayRunningText(channel: string, title: string): string {
  return `A game day already runs in <#${channel}>: ${title}. End it first, or start this one in another channel.`;
}

/** A game day asked for in a channel where attacks may not start. */
export function stepGameDayChannelText(channel: string, attackChannels: readonly string[]): string {
  return `Attacks cannot be started in <#${channel}>, so a game day there would stay empty. Use ${attackChannels.map((c) => `<#${c}>`).join(', ')}.`;
}

export const stepGameDayStartingText =
  'Another game day is starting in that channel right now. Run the workflow again in a moment.';

export function stepNoGameDayText(channel: string): string {
  return `No game day runs in <#${channel}>, so there is nothing to end.`;
}

export function stepOtherGameDayText(channel: string, title: string): string {
  return `The game day running in <#${channel}> is “${title}”, not the one this workflow names; it was left running.`;
}

/** Why a Run saved attack waiting on a second person ended without its attack. */
export function stepApprovalClosedText(closing: ApprovalClosing, command: string): string {
  switch (closing.kind) {
    case 'approved':
      return 'The request was approved and the attack started.';
    case 'expired':
      return 'Nobody approved the attack within 15 minutes, so nothing was started. Run the workflow again when a second person is at hand.';
    case 'rejected':
      return stepErrorText(`<@${closing.by}> rejected the attack, so nothing was started.`);
    case 'withdrawn':
      return 'The request for approval was withdrawn, so nothing was started.';
    case 'requester gone':
      return 'The attack was approved, but the platform login of the person who ran the workflow had ended, so nothing was started. Log in, then run the workflow again.';
    case 'not started':
      return stepErrorText(`The attack was approved, but did not start: ${errorInBrief(closing.error)}.`);
    case 'lost in a restart':
      return `The attack was approved, but Faultline restarted during its start and found no attack to show for it. Check with ${command} list before running the workflow again.`;
    case 'interrupted':
      return 'The attack was approved, but Faultline stopped before it began the start, so nothing was started. Run the workflow again.';
    // Only a game-day step's request closes these ways; a workflow's never does.
    case 'step stopped':
    case 'step not waiting':
      return 'The game-day step that asked was stopped, so nothing was started.';
  }
}

/** A guard whose state cannot be told: a typed start would offer Start anyway, a workflow cannot. */
export function stepGuardsUnknownText(error: GuardsUnknownError): string {
  return `${stepErrorText(guardRefusalText(error))} A workflow cannot choose Start anyway; start it from Slack to decide.`;
}

export const stepSavedNameMissingText = 'Give the name of a saved attack of the team.';

/** A Run saved attack step whose start a restarted Faultline finished without an attack to show for it. */
export function stepStartLostText(news: StartNews, command: string): string {
  if (news.kind === 'not sent')
    return 'Faultline restarted before it sent the attack to the platform, so nothing was started. Run the workflow again.';
  return `Faultline restarted while it started the attack and could not tell whether it started. Check with ${command} list before running the workflow again.`;
}

/** A step a stopped Faultline left half done that is not safe to do again. */
export function stepRunLostText(title: string, command: string): string {
  return `Faultline restarted while it ran "${title}" and cannot tell how far it got. Check with ${command} gameday status in its channel before running the workflow again.`;
}
