import {
  type GuardCheck,
  guardName,
  type GuardReading,
  type GuardSpec,
  type GuardsRefusedError,
  GuardsUnknownError,
  MissingGuardsError,
} from '../../guardrails/guards.ts';
import type { ModalView } from '@slack/types';
import { context, escapeMrkdwn, input, modal, plain, section, textInput } from '../blocks.ts';
import { gameDayGuardsSetText } from '../gamedays/gamedayWords.ts';
import { noticeModal } from '../notice.ts';

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

export const GUARD_PICKER_VIEW = 'gameday_guard_picker';
export const GUARD_MONITORS = 'guard_monitors';
export const GUARD_A_INTEGRATION = 'guard_a_integration';
export const GUARD_A_DOMAIN = 'guard_a_domain';
export const GUARD_ALERTS = 'guard_alerts';
export const GUARD_B_URI = 'guard_b_uri';

/**
 * The value of the one option offered when a search cannot list anything (no integration, no
 * name given): picking it is refused on submission with the reason in words.
 */
export const unusableOption = '!unusable';

export interface GuardPickerDefaults {
  title: string;
  integrationA?: string | undefined;
  domainA?: string | undefined;
  uriB?: string | undefined;
}

const search = (actionId: string, placeholder: string) => ({
  type: 'external_select' as const,
  action_id: actionId,
  placeholder: plain(placeholder),
  min_query_length: 2,
});

/**
 * `gameday guard` without a guard: monitors and alerts searched on the platform as the person
 * types, through the integration set in Faultline's configuration unless changed here.
 */
export function guardPickerModal(defaults: GuardPickerDefaults, privateMetadata: string): ModalView {
  return modal(
    GUARD_PICKER_VIEW,
    'Guard the game day',
    [
      section(
        `Guards for game day *${escapeMrkdwn(defaults.title)}*. While one is unhealthy no attack starts in the channel; when one fires, every attack it covers is halted with your session.`,
      ),
      input(GUARD_MONITORS, 'Monitor (monitoringA)', search(GUARD_MONITORS, 'Type a monitor name or id'), {
        optional: true,
      }),
      input(
        GUARD_A_INTEGRATION,
        'monitoringA integration',
        textInput(GUARD_A_INTEGRATION, defaults.integrationA, {
          placeholder: 'The integration name on the platform',
          maxLength: 100,
        }),
        {
          optional: true,
          hint: 'The name your company gave the integration on the platform. Change it before searching.',
        },
      ),
      input(
        GUARD_A_DOMAIN,
        'monitoringA domain',
        textInput(GUARD_A_DOMAIN, defaults.domainA, { placeholder: 'app.monitoring-a.example', maxLength: 253 }),
        { optional: true },
      ),
      input(GUARD_ALERTS, 'Alert (monitoringB)', search(GUARD_ALERTS, 'Type an alert name'), { optional: true }),
      input(
        GUARD_B_URI,
        'monitoringB URI',
        textInput(GUARD_B_URI, defaults.uriB, { placeholder: 'https://alerts.example.com', maxLength: 500 }),
        {
          optional: true,
          hint: "Where your company's monitoringB runs, as configured on the platform. Change it before searching.",
        },
      ),
      context(
        'A monitor reading `Alert` and an alert reading `firing` are unhealthy; a guard whose state cannot be told asks for Start anyway. To add more guards, open this form again.',
      ),
    ],
    { submit: 'Add guards', close: 'Cancel', privateMetadata },
  );
}

/** The form, submitted once its game day has ended. */
export const gameDayEndedModal: ModalView = noticeModal(
  'Guard the game day',
  'That game day has ended, so no guard was added. Start another with `gameday start <title>` and set its guards then.',
);

/** The form, once its guards are set: one line each. */
export const guardsSetModal = (title: string, lines: string): ModalView =>
  noticeModal('Guards set', gameDayGuardsSetText(title, lines));
