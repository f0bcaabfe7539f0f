import type { Button, ConfirmationDialog } from '@slack/types';
import type { HaltCause, TripAttack } from '../../attacks/events.ts';
import type { HaltOutcome } from '../../attacks/halt.ts';
import { type HaltProgress, type HaltReceipt, haltTimes, seconds, sloWords, stopMs } from '../../attacks/haltChecks.ts';
import type { MassHaltOutcome } from '../../attacks/massHalts.ts';
import { actions, button, code, confirmDialog, context, escapeMrkdwn, section, slackDate, plural } from '../blocks.ts';
import { type Message, textMessage } from '../message.ts';
import { type AttackRef, attackRefValue, HALT_ATTACK, haltAgainButton, stageWords, targetList } from './attackCard.ts';

/* A halt in words: what the person who asked is answered, what the thread, the channel and the halter are told, and its receipt. */

export const HALT_ALL_CONFIRMED = 'halt_all_confirmed';

/** Scope of a mass halt: the session's attacks, or every impact across the platform. */
export type HaltScope = 'attacks' | 'everything';

export function haltAllConfirm(scope: HaltScope): ConfirmationDialog {
  return scope === 'attacks'
    ? confirmDialog(
        'Halt all attacks?',
        'Every active attack your platform session can reach is halted, in every team, including Kubernetes attacks.',
        'Halt all',
        { danger: true },
      )
    : confirmDialog(
        'Halt everything?',
        'Every active impact across the whole platform is halted, whoever started it.',
        'Halt everything',
        { danger: true },
      );
}

/** The Halt all button (or Halt everything), behind Slack's confirm dialog. */
export function haltAllButton(scope: HaltScope = 'attacks', text = 'Halt all'): Button {
  return button(text, HALT_ALL_CONFIRMED, { style: 'danger', value: scope, confirm: haltAllConfirm(scope) });
}

/** The message `halt all` and `halt everything` answer with: one button, behind Slack's confirm dialog. */
export function haltAllPrompt(scope: HaltScope): Message {
  const text =
    scope === 'attacks'
      ? ':octagonal_sign: *Halt all attacks?* This halts every active attack your session can reach, in every team.'
      : ':octagonal_sign: *Halt everything?* This halts every active impact across the platform, whoever started it.';
  return {
    text,
    blocks: [
      section(text),
      actions('halt_all_prompt', [haltAllButton(scope, scope === 'attacks' ? 'Halt all attacks' : 'Halt everything')]),
    ],
  };
}

/** What a halt did, in words: stopped, already ended (with its outcome), already halting, or unconfirmed. */
export function haltedText(userId: string, outcome: HaltOutcome, cmd: string): string {
  const attack = `${outcome.kind === 'kubernetes' ? 'Kubernetes attack' : 'attack'} \`${outcome.guid}\``;
  const what = attack[0]!.toUpperCase() + attack.slice(1);
  const stage = outcome.state?.stage ? stageWords(outcome.state.stage) : undefined;
  if (outcome.result === 'ended')
    return `:information_source: ${what} had already ended${stage ? ` (${stage})` : ''}, so there was nothing to halt.`;
  if (outcome.result === 'unconfirmed')
    return `:warning: The halt of ${attack} was sent, but Faultline could not confirm it: the platform did not list it among the attacks it stopped, and cannot show it now. Check \`${cmd} show ${outcome.guid}\` or the web UI, and halt again if it still runs.`;
  if (outcome.result === 'halting')
    return `:octagonal_sign: ${what} is already being halted${outcome.card ? '; its card shows the progress' : ''}.`;
  const where = outcome.card ? ` Its card shows the progress.` : '';
  return `:octagonal_sign: Halt requested for ${attack} by <@${userId}>.${where}`;
}

/** How many attacks `halt all` stopped and how many had already ended, naming the first of those. */
export function massHaltText(userId: string, outcome: MassHaltOutcome): string {
  const halted = outcome.halted.length;
  const kubernetes = outcome.halted.filter((a) => a.kind === 'kubernetes').length;
  const parts = [
    halted
      ? `:octagonal_sign: <@${userId}> halted ${plural(halted, 'attack')}${kubernetes ? ` (${kubernetes} Kubernetes)` : ''}.`
      : ':information_source: There was no active attack to halt.',
  ];
  const ended = outcome.ended.length;
  if (ended) {
    const named = outcome.ended
      .slice(0, 5)
      .map((a) => `\`${a.guid.slice(0, 8)}\` (${stageWords(a.stage)})`)
      .join(', ');
    parts.push(`${ended} had already ended: ${named}${ended > 5 ? ` and ${ended - 5} more` : ''}.`);
  }
  return parts.join(' ');
}

/** What Halt everything answers once the platform took it. */
export const haltedEverythingText = (userId: string) =>
  `:octagonal_sign: <@${userId}> halted every active impact on the platform.`;

/** A person's halt, in the attack's thread. */
export const personHaltLine = (userId: string) => `:octagonal_sign: <@${userId}> halted this attack.`;

/** A halt because nobody answered the presence check, in the attack's thread. */
export const presenceHaltLine = (askedOf: string) =>
  `:zzz: Halted this attack: nobody was watching (<@${askedOf}> did not answer "Still watching?" in time).`;

/** A freeze's halt, in the attack's thread; `reason` is the halt's ("frozen: …"). */
export const freezeHaltLine = (userId: string, reason: string | undefined) =>
  `:snowflake: <@${userId}>'s freeze halted this attack${reason ? ` (${escapeMrkdwn(reason)})` : ''}.`;

/** The targets a halt has stopped, then every one: in the thread of an attack whose halt was not verified at first. */
export const haltVerifiedLine = (progress: Pick<HaltProgress, 'stopped' | 'total' | 'sloSeconds'>) =>
  `:white_check_mark: Halt verified: ${progress.stopped} of ${plural(progress.total, 'target')} stopped.`;

/** An attack as a direct message names it: its type, id and channel, as far as they are known. */
const attackNamed = (ref: AttackRef, attack: { type?: string | undefined; channel?: string | undefined }) =>
  `${attack.type ? `the *${escapeMrkdwn(attack.type)}* attack` : 'attack'} \`${ref.guid}\`${attack.channel ? ` in <#${attack.channel}>` : ''}`;

/**
 * A target still running `HALT_SLO_SECONDS` after a halt, with Halt again: in the attack's thread, and (with
 * `to`: the attack and what made the halt) to the person whose session halted it.
 */
export function haltStuckMessage(
  ref: AttackRef,
  progress: Pick<HaltProgress, 'stopped' | 'total' | 'running' | 'sloSeconds'>,
  to?: { type?: string | undefined; channel?: string | undefined; cause: HaltCause },
): Message {
  const still = progress.total - progress.stopped;
  const attack = to ? attackNamed(ref, to) : '';
  const which = !to
    ? 'The halt'
    : to.cause === 'person'
      ? `Your halt of ${attack}`
      : `The halt of ${attack}, made with your session (${haltCauseWords[to.cause]}),`;
  const text = `:warning: ${which} has not stopped every target: ${plural(still, 'target')} still running ${sloWords(progress.sloSeconds)} after it (${targetList(progress.running)}), ${progress.stopped} of ${progress.total} stopped. Halt again, or stop ${still === 1 ? 'it' : 'them'} on the platform.`;
  return { text, blocks: [section(text), actions('halt_again', [haltAgainButton(ref)])] };
}

/**
 * A warning of a halt not verified, once every target has stopped: in the attack's thread, and
 * (with `to`) in the direct message to the person whose session halted it. No Halt again.
 */
export function haltVerifiedLateMessage(
  ref: AttackRef,
  progress: Pick<HaltProgress, 'stopped' | 'total' | 'sloSeconds'>,
  to?: { type?: string | undefined; channel?: string | undefined },
): Message {
  const which = to ? `The halt of ${attackNamed(ref, to)}` : 'The halt';
  return textMessage(
    `:white_check_mark: ${which} was not verified at first: a target ran on ${sloWords(progress.sloSeconds)} after it. It is verified now: ${progress.stopped} of ${plural(progress.total, 'target')} stopped.`,
  );
}

/** To the person whose session halted an attack: `HALT_SLO_SECONDS` on, no stored session can read its targets. */
export function haltUnreadableMessage(
  ref: AttackRef,
  attack: { type?: string | undefined; channel?: string | undefined },
): Message {
  const text = `:warning: Faultline cannot verify the halt of ${attackNamed(ref, attack)}: no logged-in session can read its targets. Check it in the platform, log in again, or halt it again.`;
  return { text, blocks: [section(text), actions('halt_again', [haltAgainButton(ref)])] };
}

const haltCauseWords: Record<Exclude<HaltCause, 'person'>, string> = {
  guard: 'your guard fired',
  freeze: 'your freeze',
  presence: 'nobody answered "Still watching?"',
};

/** A guard's halt, in the attack's thread. */
export function guardHaltLine(guard: { name: string; state: string; at: string }, ownerId: string): string {
  return `:rotating_light: Guard *${escapeMrkdwn(guard.name)}* fired (${escapeMrkdwn(guard.state)}) at ${slackDate(new Date(guard.at), '{time}')}: halted this attack with <@${ownerId}>'s session.`;
}

const listed = (attacks: readonly TripAttack[]) =>
  attacks.map((c) => `*${escapeMrkdwn(c.type)}* \`${c.guid}\` in *${escapeMrkdwn(c.teamName)}*`).join(', ');

/** In a channel: a fired guard could not halt these attacks; a Halt for each, and Halt all for the hurry. */
export function guardCouldNotHalt(
  guard: { name: string; state: string },
  ownerId: string,
  attacks: readonly TripAttack[],
): Message {
  const text = `:rotating_light: Guard *${escapeMrkdwn(guard.name)}* fired (${escapeMrkdwn(guard.state)}), but <@${ownerId}>'s session could not halt ${listed(attacks)}. Halt ${attacks.length === 1 ? 'it' : 'them'} now.`;
  const halts = attacks.slice(0, 24).map((c) =>
    button(`Halt ${c.type} · ${c.guid.slice(0, 8)}`, HALT_ATTACK, {
      style: 'danger',
      value: attackRefValue({ guid: c.guid, teamId: c.teamId, kind: c.kind }),
    }),
  );
  return { text, blocks: [section(text), actions('guard_halt', [...halts, haltAllButton()])] };
}

/** To the guard's owner: their session could not halt what their guard covers. */
export function guardOwnerCouldNotHalt(
  guard: { name: string; state: string },
  attacks: readonly TripAttack[],
  command: string,
): string {
  return `:rotating_light: Your guard *${escapeMrkdwn(guard.name)}* fired (${escapeMrkdwn(guard.state)}), but your session could not halt ${listed(attacks)}: log in again with \`${command} login\` and halt ${attacks.length === 1 ? 'it' : 'them'}, or ask someone who can.`;
}

/** Where a freeze was declared: its sweep halted attacks that started in the frozen team. */
export function frozenHaltText(
  teamName: string,
  halted: readonly { guid: string; kind: 'attack' | 'kubernetes'; type: string | undefined }[],
): string {
  const names = halted
    .map(
      (a) =>
        `${a.kind === 'kubernetes' ? 'Kubernetes ' : ''}${a.type ? `*${escapeMrkdwn(a.type)}* ` : ''}\`${a.guid}\``,
    )
    .join(', ');
  return `:snowflake: Halted ${names} in *${escapeMrkdwn(teamName)}*: it started while the team is frozen.`;
}

/** One halt's times, as a list line reads them: sent, accepted, how many stopped, median and slowest. */
export function receiptLine(receipt: Pick<HaltReceipt, 'sentAt' | 'acceptedAt' | 'total' | 'stops'>): string {
  const accepted = receipt.acceptedAt
    ? ` · accepted in ${seconds(Math.max(0, Date.parse(receipt.acceptedAt) - Date.parse(receipt.sentAt)))}`
    : '';
  const times = haltTimes(receipt.sentAt, receipt.stops);
  const stopped = `${receipt.stops.length} of ${plural(receipt.total, 'target')} stopped`;
  return times
    ? `${stopped}${accepted} · median ${seconds(times.medianMs)} · slowest ${seconds(times.slowestMs)} (${code(times.slowest.target)})`
    : `${stopped}${accepted}`;
}

/** Each target's stop after the halt was sent, slowest first, as `show` and the reports name them. */
export function stopTimes(receipt: Pick<HaltReceipt, 'sentAt' | 'stops'>, limit = 10): string {
  const named = receipt.stops
    .slice(0, limit)
    .map((stop) => `${code(stop.target)} ${seconds(stopMs(receipt.sentAt, stop))}`);
  const more = receipt.stops.length - named.length;
  return [...named, ...(more > 0 ? [`${more} more`] : [])].join(', ');
}

/** A halt as its card keeps it, in the words of a receipt: `show`, the game-day summary and the report. */
export function haltReceiptText(check: HaltProgress): string {
  const receipt = {
    sentAt: check.haltedAt,
    acceptedAt: check.acceptedAt,
    total: check.total,
    stops: check.stops ?? [],
  };
  const state = check.verified ? 'Halt verified' : 'Halt not verified yet';
  return `${state}: ${receiptLine(receipt)}${receipt.stops.length ? `\nEach target: ${stopTimes(receipt)}` : ''}`;
}

/** `/chaos halts`: the team's last verified halts, latest first, with their times. */
export function haltReceiptsMessage(teamName: string, receipts: HaltReceipt[]): Message {
  const title = `Last halts of team ${escapeMrkdwn(teamName)}`;
  if (!receipts.length) return textMessage(`No verified halt of team ${escapeMrkdwn(teamName)} in the last 30 days.`);
  const lines = receipts.map(
    (receipt) =>
      `• ${code(receipt.guid.slice(0, 8))} ${escapeMrkdwn(receipt.type ?? 'attack')}, halted ${slackDate(new Date(receipt.sentAt))}: ${receiptLine(receipt)}`,
  );
  return {
    text: `${title}: ${receipts.length}`,
    blocks: [
      section(`*${title}*`),
      section(lines.join('\n')),
      context("Times from when the halt was sent to when each target was first seen stopped (its execution's end)."),
    ],
  };
}
