import { type HaltProgress, type HaltReceipt, haltTimes, seconds, stopMs } from '../../attacks/haltChecks.ts';
import { code, context, escapeMrkdwn, section, slackDate, plural } from '../blocks.ts';
import type { Message } from '../message.ts';

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
  if (!receipts.length) {
    const text = `No verified halt of team ${escapeMrkdwn(teamName)} in the last 30 days.`;
    return { text, blocks: [section(text)] };
  }
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
