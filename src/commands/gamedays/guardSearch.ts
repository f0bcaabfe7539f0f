import { NoIntegrationError, NotFoundError, UnauthorizedError } from '../../client/errors.ts';
import type { ScopedPlatform } from '../../client/index.ts';
import type { MonitorA } from '../../client/schemas.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../store/sessions.ts';
import { limits, truncate } from '../../views/blocks.ts';
import { GUARD_A_DOMAIN, GUARD_A_INTEGRATION, GUARD_B_URI, unusableOption } from '../../views/guardrails/guards.ts';
import type { OptionsHandler } from '../command.ts';

/** The guard form's searches: monitors and alerts found on the platform with the person's session, as they type. */

/** As `--guard b:<name>` accepts it: the name also goes into guard flags and lines. */
export const alertNamePattern = /^[\w.:/-]{1,200}$/;

const unusable = (text: string) => [{ text: truncate(text, limits.optionText), value: unusableOption }];

/** The person's platform access for a search, or the one option that says why there is none. */
async function searchAccess(deps: Services, actor: Actor): Promise<ScopedPlatform | { text: string; value: string }[]> {
  const login = await deps.login.current(actor);
  if (!login) return unusable(`Log in first with ${deps.command} login`);
  if (!login.team) return unusable(`Choose a team first with ${deps.command} team`);
  return deps.attacks.api(login, login.team);
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
