import type { Services } from '../../services.ts';
import { requireTeam } from '../../attacks/access.ts';
import { NotLoggedInError, UserInputError } from '../../errors.ts';
import type { GameDayAccess } from '../../gamedays/service.ts';
import { gameDayRefValue, parseGameDayRef, type GameDayRecord } from '../../gamedays/gamedayRecord.ts';
import type { GuardCheck, GuardSpec } from '../../guardrails/guards.ts';
import type { Actor } from '../../store/sessions.ts';
import { gameDayGuardsRefusedText } from '../../views/gamedays/gamedayWords.ts';
import {
  guardLine,
  guardsRemovedLine,
  guardsSetLine,
  GUARD_A_DOMAIN,
  GUARD_A_INTEGRATION,
  GUARD_ALERTS,
  GUARD_B_URI,
  GUARD_MONITORS,
  gameDayEndedModal,
  guardPickerModal,
  guardsSetModal,
  unusableOption,
} from '../../views/guardrails/guards.ts';
import type { Reply, Submission, SubmissionReply } from '../command.ts';
import { alertNamePattern } from '../../guardrails/searches.ts';

/**
 * A game day's guards from Slack: `gameday guard` and `unguard`, and the form that picks them.
 * Who may change them, and the change, are the guardrail service's (src/guardrails/service.ts).
 */

type RunningGameDay = GameDayRecord & { id: string };

/** A change the game-day rule refused, as the person reads it. */
function refusal(access: GameDayAccess, record: GameDayRecord, change: 'add' | 'remove'): Error {
  return access.loggedIn
    ? new UserInputError(gameDayGuardsRefusedText(record, change))
    : new NotLoggedInError(access.expired);
}

/** A change said in the game day's thread, and its card redrawn. */
async function told(deps: Services, record: RunningGameDay, text: string): Promise<void> {
  if (record.ts)
    await deps.slack
      .post(record.channel, { text }, { threadTs: record.ts })
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'could not post the guards in the game-day thread'));
  await deps.gamedays.days.showGuards(record.channel);
}

/** Adds guards to the channel's running game day; gives a line for each. */
export async function addGuards(
  deps: Services,
  actor: Actor,
  record: RunningGameDay,
  specs: GuardSpec[],
  checks?: GuardCheck[],
): Promise<string> {
  const added = await deps.guardrails.addGameDayGuards(actor, record, specs, checks);
  if ('refused' in added) throw refusal(added.refused, record, 'add');
  const lines = specs.map((spec, i) => guardLine(spec, added.readings[i]));
  await told(deps, record, guardsSetLine(actor.userId, lines));
  return lines.join('\n');
}

/** Removes guards from the channel's running game day; gives the names of those removed, and the flags it did not have. */
export async function removeGuards(
  deps: Services,
  actor: Actor,
  record: RunningGameDay,
  specs: GuardSpec[],
): Promise<{ removed: string[]; missing: string[] }> {
  const outcome = await deps.guardrails.removeGameDayGuards(actor, record, specs);
  if ('refused' in outcome) throw refusal(outcome.refused, record, 'remove');
  if (outcome.removed.length) await told(deps, record, guardsRemovedLine(actor.userId, outcome.removed));
  return outcome;
}

/** `gameday guard` without a guard: the form that searches monitors and alerts. */
export async function openGuardPicker(deps: Services, actor: Actor, record: RunningGameDay): Promise<Reply> {
  // Searching reads the platform with the person's session, and the guards act with it.
  const access = await deps.gamedays.access(actor, record, 'add guards');
  if (!access.may) throw refusal(access, record, 'add');
  const { monitoring } = deps.attacks.settings;
  return {
    kind: 'openModal',
    view: guardPickerModal(
      {
        title: record.title,
        integrationA: monitoring.integrationA,
        domainA: monitoring.domainA,
        uriB: monitoring.uriB,
      },
      gameDayRefValue(record),
    ),
  };
}

const monitorIdPattern = /^\d{1,20}$/;
const integrationNamePattern = /^[\w .:@-]{1,100}$/;
const domainPattern =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::\d{1,5})?$/i;

function isWebAddress(text: string): boolean {
  const url = URL.parse(text);
  return url !== null && (url.protocol === 'https:' || url.protocol === 'http:') && !/[\s<>|]/.test(text);
}

const picked = (value: string | undefined) => [
  ...new Set(
    (value ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  ),
];

/** The guards a submitted form names, or the field errors that keep it open. */
function guardsOfForm(inputs: Submission['inputs']): { specs: GuardSpec[] } | { errors: Record<string, string> } {
  const monitors = picked(inputs[GUARD_MONITORS]);
  const alerts = picked(inputs[GUARD_ALERTS]);
  const integration = inputs[GUARD_A_INTEGRATION]?.trim() ?? '';
  const domain = inputs[GUARD_A_DOMAIN]?.trim() ?? '';
  const uri = inputs[GUARD_B_URI]?.trim() ?? '';
  const errors: Record<string, string> = {};
  if (!monitors.length && !alerts.length)
    errors[GUARD_MONITORS] = 'Choose a monitor or an alert to guard the game day with.';
  if (monitors.includes(unusableOption))
    errors[GUARD_MONITORS] =
      'That choice is not a monitor: correct the integration name and domain, then search again.';
  else if (monitors.some((m) => !monitorIdPattern.test(m)))
    errors[GUARD_MONITORS] = 'Choose a monitor from the search results.';
  if (alerts.includes(unusableOption))
    errors[GUARD_ALERTS] = 'That choice is not an alert: correct the URI, then search again.';
  else if (alerts.some((a) => !alertNamePattern.test(a)))
    errors[GUARD_ALERTS] = 'Choose an alert from the search results.';
  if (monitors.length && !integration)
    errors[GUARD_A_INTEGRATION] = 'Name the monitoringA integration the monitors are read through.';
  else if (integration && !integrationNamePattern.test(integration))
    errors[GUARD_A_INTEGRATION] =
      'Use the integration name as the platform shows it: letters, digits, spaces and `_ . : @ -`.';
  if (domain && !domainPattern.test(domain))
    errors[GUARD_A_DOMAIN] = 'Give the domain as a host name, such as app.monitoring-a.example.';
  if (alerts.length && !uri) errors[GUARD_B_URI] = 'Give the monitoringB URI the alerts are read at.';
  else if (uri && !isWebAddress(uri)) errors[GUARD_B_URI] = 'Give the URI as an https:// address.';
  if (Object.keys(errors).length) return { errors };
  return {
    specs: [
      ...monitors.map((monitorId): GuardSpec => ({ kind: 'a', monitorId, integration, domain: domain || undefined })),
      ...alerts.map((alert): GuardSpec => ({ kind: 'b', alert, uri })),
    ],
  };
}

/** Field errors for guards the platform cannot read: a missing integration, an unknown monitor or alert. */
function unreadableGuards(checks: GuardCheck[]): Record<string, string> {
  const errors: Record<string, string> = {};
  const state = (kind: GuardSpec['kind'], wanted: string) =>
    checks.filter((c) => c.guard.spec.kind === kind && c.reading.state === wanted);
  if (state('a', 'no integration').length)
    errors[GUARD_A_INTEGRATION] =
      'Your company has no monitoringA integration by this name and domain on the platform. Check both, or ask a company admin to add it.';
  else {
    const missing = state('a', 'not found').map((c) => (c.guard.spec.kind === 'a' ? c.guard.spec.monitorId : ''));
    if (missing.length) errors[GUARD_MONITORS] = `The integration has no monitor ${missing.join(', ')}.`;
  }
  if (state('b', 'no integration').length)
    errors[GUARD_B_URI] =
      'Your company has no monitoringB integration at this URI on the platform. Check it, or ask a company admin to add it.';
  else {
    const missing = state('b', 'not found').map((c) => (c.guard.spec.kind === 'b' ? c.guard.spec.alert : ''));
    if (missing.length) errors[GUARD_ALERTS] = `No alert named ${missing.join(', ')} at this URI.`;
  }
  return errors;
}

/** Add guards, on the form: each guard is read once; none is added unless all can be. */
export async function submitGuardPicker(submission: Submission, deps: Services): Promise<SubmissionReply> {
  const ref = parseGameDayRef(submission.privateMetadata);
  const record = ref && (await deps.gamedays.days.running(ref.channel));
  if (!record || record.ts !== ref.ts) {
    return {
      kind: 'update',
      view: gameDayEndedModal,
    };
  }
  const form = guardsOfForm(submission.inputs);
  if ('errors' in form) return { kind: 'errors', errors: form.errors };
  const login = await deps.login.require(submission.actor);
  const team = requireTeam(login);
  const owner = {
    workspaceId: submission.actor.workspaceId,
    userId: submission.actor.userId,
    userName: submission.actor.userName,
  };
  const checks = await deps.guardrails.checkGuards(
    login,
    team,
    form.specs.map((spec) => ({ spec, owner })),
  );
  const errors = unreadableGuards(checks);
  if (Object.keys(errors).length) return { kind: 'errors', errors };
  const lines = await addGuards(deps, submission.actor, record, form.specs, checks);
  return {
    kind: 'update',
    view: guardsSetModal(record.title, lines),
  };
}
