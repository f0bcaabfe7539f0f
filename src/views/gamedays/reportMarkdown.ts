import { type HaltProgress, haltTimes, seconds, stopMs } from '../../attacks/haltChecks.ts';
import { plural } from '../blocks.ts';

// Markdown pieces of the game-day report: safe text and code, times, and a halt's receipt.

/** Text safe in Markdown prose: no markup, links, HTML or headings start from it. */
export function markdownText(text: string): string {
  // Inline only: `#`, `+` or `-` never start a line here. `[` escaped, `(` cannot make a link.
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/([\\`*_[\]<>|~#])/g, '\\$1');
}

/** Text as inline code: backticks cannot end it early. */
export function markdownCode(text: string): string {
  const clean = text.replace(/\s+/g, ' ').trim().replace(/`/g, "'");
  return `\`${clean || ' '}\``;
}

/** A time in UTC to the second, or a dash. */
export const time = (iso: string | undefined) =>
  iso && !Number.isNaN(Date.parse(iso))
    ? new Date(iso)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC')
    : '—';

/** A halt's receipt in the report: sent, accepted, how long its targets took, and each one's stop. */
export function haltLines(halt: HaltProgress, listed: number): string[] {
  const stops = halt.stops ?? [];
  const times = haltTimes(halt.haltedAt, stops);
  const took = times
    ? `; median ${seconds(times.medianMs)}, slowest ${seconds(times.slowestMs)} (${markdownCode(times.slowest.target)})`
    : '';
  const lines = [
    `- **Halt:** ${halt.verified ? 'verified' : 'not verified'}; sent ${time(halt.haltedAt)}, accepted ${time(halt.acceptedAt)}; ${halt.stopped} of ${plural(halt.total, 'target')} stopped${took}`,
  ];
  for (const stop of stops.slice(0, listed))
    lines.push(
      `  - ${markdownCode(stop.target)}: stopped ${time(stop.at)} (${seconds(stopMs(halt.haltedAt, stop))} after the halt)`,
    );
  if (stops.length > listed) lines.push(`  - and ${plural(stops.length - listed, 'more target')}`);
  return lines;
}
