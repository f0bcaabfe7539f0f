import { NoIntegrationError, NotFoundError, UnauthorizedError } from '../../client/errors.ts';
import type { ScopedPlatform } from '../../client/index.ts';
import type { MonitorA } from '../../client/schemas.ts';
import type { Deps } from '../../deps.ts';
import { platformFor, RUN_PRIVILEGE, requireLogin, requireTeam } from '../../attacks/access.ts';
import { UserInputError } from '../../errors.ts';
import { checkGuards, type GuardCheck } from '../../guardrails/guardCheck.ts';
import { guardFlag, guardKey, guardName, type GuardSpec } from '../../guardrails/guards.ts';
import { gameDayGuardsRefusedText } from '../../views/gamedays/gamedayWords.ts';
import { guardLine, guardsRemovedLine, guardsSetLine } from '../../views/guardrails/guards.ts';
import type { OptionsHandler, Reply, Submission, SubmissionReply } from '../reply.ts';
import type { Actor } from '../../store/sessions.ts';
import { limits, truncate } from '../../views/blocks.ts';
import { gameDayRefValue, parseGameDayRef, type GameDayRecord } from '../../gamedays/gamedayRecord.ts';
import {
  GUARD_A_DOMAIN,
  GUARD_A_INTEGRATION,
  GUARD_ALERTS,
  GUARD_B_URI,
  GUARD_MONITORS,
  gameDayEndedModal,
  guardPickerModal,
  guardsSetModal,
  unusableOption,
} from '../../views/guardrails/guardPicker.ts';

type RunningGameDay = GameDayRecord & { id: string };

/**
 * The one rule for changing a game day's guards, whichever way in (command, form, start):
 * the person's own session has EXPERIMENTS_RUN or HALT_WRITE on the game day's team (on any of
 * their teams, for a game day kept before its team was); its facilitator may also remove one.
 */
export async function requireMayChangeGuards(
  deps: Deps,
  actor: Actor,
  record: GameDayRecord,
  change: 'add' | 'remove',
): Promise<void> {
  if (change === 'remove' && actor.userId === record.facilitator) return;
  const login = await requireLogin(deps, actor);
  const may = login.session.teams.some(
    (t) =>
      (record.teamId === undefined || t.identifier === record.teamId) &&
      (t.privileges.includes(RUN_PRIVILEGE) || t.privileges.includes('HALT_WRITE')),
  );
  if (!may) throw new UserInputError(gameDayGuardsRefusedText(record, change));
}

/**
 * Adds guards to the channel's running game day, says so in its thread and redraws its card.
 * `checks` are readings already taken of these guards (the form reads them to refuse bad ones).
 */
export async function addGameDayGuards(
  deps: Deps,
  actor: Actor,
  record: RunningGameDay,
  specs: GuardSpec[],
  checks?: GuardCheck[],
): Promise<string> {
  await requireMayChangeGuards(deps, actor, record, 'add');
  const owner = { workspaceId: actor.workspaceId, userId: actor.userId, userName: actor.userName };
  const all = await deps.guards.addToGameDay(
    record.id,
    specs.map((spec) => ({ spec, owner })),
  );
  let readings = checks;
  if (!readings) {
    const login = await deps.sessions.get(actor);
    readings = login?.team
      ? await checkGuards(
          deps,
          platformFor(deps, login, login.team),
          all.filter((g) => specs.some((s) => guardKey(s) === guardKey(g.spec))),
        )
      : [];
  }
  const lines = specs.map((spec) =>
    guardLine(spec, readings.find((r) => guardKey(r.guard.spec) === guardKey(spec))?.reading),
  );
  const text = guardsSetLine(actor.userId, lines);
  if (record.ts)
    await deps.slack
      .post(record.channel, { text }, { threadTs: record.ts })
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'could not post the guards in the game-day thread'));
  await deps.gameDays.showGuards(record.channel);
  return lines.join('\n');
}

/**
 * Removes guards from the channel's running game day, says so in its thread and redraws its
 * card; gives the names of those removed, and the flags it did not have.
 */
export async function removeGameDayGuards(
  deps: Deps,
  actor: Actor,
  record: RunningGameDay,
  specs: GuardSpec[],
): Promise<{ removed: string[]; missing: string[] }> {
  await requireMayChangeGuards(deps, actor, record, 'remove');
  const flags = specs.map(guardFlag);
  const removed = await deps.guards.removeFromGameDay(record.id, flags);
  const names: string[] = [];
  for (const guard of removed) names.push(guardName(guard.spec, await deps.guards.reading(guard.spec)));
  const missing = flags.filter((flag) => !removed.some((g) => guardFlag(g.spec) === flag));
  if (names.length) {
    if (record.ts)
      await deps.slack
        .post(record.channel, { text: guardsRemovedLine(actor.userId, names) }, { threadTs: record.ts })
        .catch((error: unknown) =>
          deps.logger.warn({ err: error }, 'could not post the removed guards in the game-day thread'),
        );
    await deps.gameDays.showGuards(record.channel);
  }
  return { removed: names, missing };
}

/** `gameday guard` without a guard: the form that searches monitors and alerts. */
export async function openGuardPicker(deps: Deps, actor: Actor, record: RunningGameDay): Promise<Reply> {
  // Searching reads the platform with the person's session, and the guards act with it.
  await requireMayChangeGuards(deps, actor, record, 'add');
  const { monitoring } = deps.config;
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

const unusable = (text: string) => [{ text: truncate(text, limits.optionText), value: unusableOption }];

/** The person's platform access for a search, or the one option that says why there is none. */
async function searchAccess(deps: Deps, actor: Actor): Promise<ScopedPlatform | { text: string; value: string }[]> {
  const login = await deps.sessions.get(actor);
  if (!login) return unusable(`Log in first with ${deps.config.slack.command} login`);
  if (!login.team) return unusable(`Choose a team first with ${deps.config.slack.command} team`);
  return platformFor(deps, login, login.team);
}

/** `checkout p99 latency (1234567)`: the name shortened, never the id. */
function monitorOption(monitor: MonitorA): { text: string; value: string } {
  const id = String(monitor.id);
  const suffix = ` (${id})`;
  return {
    text: `${truncate(monitor.name ?? 'unnamed monitor', limits.optionText - suffix.length)}${suffix}`,
    value: id,
  };
}

/** A monitor id typed alone, or the id at the end of an option's text (`name (1234567)`). */
function typedMonitorId(query: string): string | undefined {
  return /^(\d{1,20})$/.exec(query)?.[1] ?? /\((\d{1,20})\)$/.exec(query)?.[1];
}

/** Monitors of the integration named in the form, by name or id, as the person types. */
export const suggestMonitors: OptionsHandler = async ({ actor, query, inputs }, deps) => {
  const integrationName = inputs[GUARD_A_INTEGRATION]?.trim();
  if (!integrationName) return unusable('Fill in the monitoringA integration first');
  const domain = inputs[GUARD_A_DOMAIN]?.trim() || undefined;
  const api = await searchAccess(deps, actor);
  if (Array.isArray(api)) return api;
  const typed = query.trim();
  const id = typedMonitorId(typed);
  try {
    if (id) {
      const monitor = await api.monitoring.getMonitorA(id, { integrationName, domain }).catch((error: unknown) => {
        // No monitor has that id: the digits may be part of a name.
        if (error instanceof NotFoundError && !(error instanceof NoIntegrationError)) return undefined;
        throw error;
      });
      if (monitor) return [monitorOption(monitor)];
    }
    const found = await api.monitoring.searchMonitorsA(typed, {
      integrationName,
      domain,
      page: 0,
      perPage: limits.selectOptions,
    });
    return found.monitors.slice(0, limits.selectOptions).map(monitorOption);
  } catch (error) {
    if (error instanceof NoIntegrationError)
      return unusable(`No monitoringA integration “${integrationName}”${domain ? ` at ${domain}` : ''}`);
    if (error instanceof NotFoundError) return [];
    if (error instanceof UnauthorizedError) return unusable('Your platform session has ended: log in again');
    throw error;
  }
};

/**
 * Alerts at the URI named in the form whose name holds what the person typed. The platform's
 * `name` filter matches whole names only, so a partial name is matched here, over the list.
 */
export const suggestAlerts: OptionsHandler = async ({ actor, query, inputs }, deps) => {
  const uri = inputs[GUARD_B_URI]?.trim();
  if (!uri) return unusable('Fill in the monitoringB URI first');
  const api = await searchAccess(deps, actor);
  if (Array.isArray(api)) return api;
  const typed = query.trim();
  try {
    const exact = await api.monitoring.alertsB({ uri, name: typed });
    const alerts = exact.some((a) => a.name === typed) ? exact : await api.monitoring.alertsB({ uri });
    const wanted = typed.toLowerCase();
    const names = [...new Set(alerts.map((a) => a.name))].filter(
      (name) => name.toLowerCase().includes(wanted) && alertNamePattern.test(name),
    );
    const rank = (name: string) => (name === typed ? 0 : name.toLowerCase().startsWith(wanted) ? 1 : 2);
    return names
      .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
      .slice(0, limits.selectOptions)
      .map((name) => ({ text: name, value: name }));
  } catch (error) {
    if (error instanceof NoIntegrationError) return unusable(`No monitoringB integration at ${uri}`);
    if (error instanceof UnauthorizedError) return unusable('Your platform session has ended: log in again');
    throw error;
  }
};

const monitorIdPattern = /^\d{1,20}$/;
/** As `--guard b:<name>` accepts it: the name also goes into guard flags and lines. */
const alertNamePattern = /^[\w.:/-]{1,200}$/;
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
export async function submitGuardPicker(submission: Submission, deps: Deps): Promise<SubmissionReply> {
  const ref = parseGameDayRef(submission.privateMetadata);
  const record = ref && (await deps.gameDays.running(ref.channel));
  if (!record || record.ts !== ref.ts) {
    return {
      kind: 'update',
      view: gameDayEndedModal,
    };
  }
  const form = guardsOfForm(submission.inputs);
  if ('errors' in form) return { kind: 'errors', errors: form.errors };
  const login = await requireLogin(deps, submission.actor);
  const team = requireTeam(login);
  const owner = {
    workspaceId: submission.actor.workspaceId,
    userId: submission.actor.userId,
    userName: submission.actor.userName,
  };
  const checks = await checkGuards(
    deps,
    platformFor(deps, login, team),
    form.specs.map((spec) => ({ spec, owner })),
  );
  const errors = unreadableGuards(checks);
  if (Object.keys(errors).length) return { kind: 'errors', errors };
  const lines = await addGameDayGuards(deps, submission.actor, record, form.specs, checks);
  return {
    kind: 'update',
    view: guardsSetModal(record.title, lines),
  };
}
