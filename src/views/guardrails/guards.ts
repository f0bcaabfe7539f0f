import {
  type GuardCheck,
  guardName,
  type GuardReading,
  type GuardSpec,
  type GuardsRefusedError,
  GuardsUnknownError,
  MissingGuardsError,
} from '../../guardrails/guards.ts';
import { escapeMrkdwn } from '../blocks.ts';

/** A guard's reading in a line: `checkout p99 latency (1234567): Alert`. */
export function guardLine(spec: GuardSpec, reading: GuardReading | undefined): string {
  const emoji = !reading
    ? ':grey_question:'
    : reading.health === 'unhealthy'
      ? ':rotating_light:'
      : reading.health === 'healthy'
        ? ':large_green_circle:'
        : ':grey_question:';
  return `${emoji} ${escapeMrkdwn(guardName(spec, reading))}: ${escapeMrkdwn(reading?.state ?? 'not read yet')}`;
}

const named = (checks: GuardCheck[]) =>
  checks
    .map((c) => `*${escapeMrkdwn(guardName(c.guard.spec, c.reading))}* (${escapeMrkdwn(c.reading.state)})`)
    .join(', ');

export function unknownGuardsText(checks: GuardCheck[]): string {
  return `:grey_question: The state of ${checks.length === 1 ? 'guard' : 'guards'} ${named(checks)} cannot be told, so ${checks.length === 1 ? 'it' : 'they'} cannot stop this attack if the system turns unhealthy.`;
}

/** A start refused by its guards: unhealthy, watching nothing that exists, or not readable and not confirmed on the preview. */
export function guardRefusalText(error: GuardsRefusedError): string {
  if (error instanceof MissingGuardsError) {
    const one = error.checks.length === 1;
    const what = error.checks
      .map(
        (c) =>
          `*${escapeMrkdwn(c.guard.spec.kind === 'a' ? `monitor ${c.guard.spec.monitorId}` : `alert ${c.guard.spec.alert}`)}*`,
      )
      .join(', ');
    return `Not started: the platform has no ${what}, so ${one ? 'that guard' : 'those guards'} could never halt this attack. Check the ${one ? 'id or name' : 'ids or names'} in \`--guard\` and run the command again.`;
  }
  if (error instanceof GuardsUnknownError)
    return `${unknownGuardsText(error.checks)} Nothing was started: run the command again, and its preview shows the guards and offers Start anyway.`;
  const unhealthy = error.checks;
  return `:rotating_light: Not started: ${unhealthy.length === 1 ? 'its guard' : 'its guards'} ${named(unhealthy)} ${unhealthy.length === 1 ? 'says' : 'say'} the system is unhealthy. Nothing was sent; start it once ${unhealthy.length === 1 ? 'it recovers' : 'they recover'}.`;
}

/** Told in the game day's thread when guards are set on it, with their readings. */
export function guardsSetLine(userId: string, lines: string[]): string {
  const one = lines.length === 1;
  return `:shield: <@${userId}> set ${one ? 'a guard' : `${lines.length} guards`} on this game day: every attack started here is refused while ${one ? 'it is' : 'one is'} unhealthy, and halted if ${one ? 'it fires' : 'one fires'}.\n${lines.join('\n')}`;
}

/** Said in the game day's thread when someone removes guards from it. */
export function guardsRemovedLine(userId: string, names: string[]): string {
  return `:shield: <@${userId}> removed ${names.length === 1 ? 'a guard' : `${names.length} guards`} from this game day: ${names.map(escapeMrkdwn).join(', ')}. Attacks are no longer refused or halted by ${names.length === 1 ? 'it' : 'them'}.`;
}
