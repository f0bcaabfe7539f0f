import { NoIntegrationError, NotFoundError, UnauthorizedError } from '../../client/errors.ts';
import type { TeamEntry } from '../../client/index.ts';
import type { MonitorA } from '../../client/schemas.ts';
import type { Services } from '../../services.ts';
import type { Actor, Login } from '../../store/sessions.ts';
import { limits, truncate } from '../../views/blocks.ts';
import { GUARD_A_DOMAIN, GUARD_A_INTEGRATION, GUARD_B_URI, unusableOption } from '../../views/guardrails/guards.ts';
import type { OptionsHandler } from '../command.ts';

/** The guard form's searches, as options: what the person's session finds as they type (src/guardrails/searches.ts). */

const unusable = (text: string) => [{ text: truncate(text, limits.optionText), value: unusableOption }];

/** The person's login and team for a search, or the one option that says why there are none. */
async function searchAccess(
  deps: Services,
  actor: Actor,
): Promise<{ login: Login; team: TeamEntry } | { text: string; value: string }[]> {
  const login = await deps.login.current(actor);
  if (!login) return unusable(`Log in first with ${deps.command} login`);
  if (!login.team) return unusable(`Choose a team first with ${deps.command} team`);
  return { login, team: login.team };
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

/** Monitors of the integration named in the form, by name or id, as the person types. */
export const suggestMonitors: OptionsHandler = async ({ actor, query, inputs }, deps) => {
  const integrationName = inputs[GUARD_A_INTEGRATION]?.trim();
  if (!integrationName) return unusable('Fill in the monitoringA integration first');
  const domain = inputs[GUARD_A_DOMAIN]?.trim() || undefined;
  const access = await searchAccess(deps, actor);
  if (Array.isArray(access)) return access;
  try {
    const where = { integrationName, domain };
    const found = await deps.guardrails.monitorsLike(
      access.login,
      access.team,
      query.trim(),
      where,
      limits.selectOptions,
    );
    return found.map(monitorOption);
  } catch (error) {
    if (error instanceof NoIntegrationError)
      return unusable(`No monitoringA integration “${integrationName}”${domain ? ` at ${domain}` : ''}`);
    if (error instanceof NotFoundError) return [];
    if (error instanceof UnauthorizedError) return unusable('Your platform session has ended: log in again');
    throw error;
  }
};

/** Alerts at the URI named in the form whose name holds what the person typed. */
export const suggestAlerts: OptionsHandler = async ({ actor, query, inputs }, deps) => {
  const uri = inputs[GUARD_B_URI]?.trim();
  if (!uri) return unusable('Fill in the monitoringB URI first');
  const access = await searchAccess(deps, actor);
  if (Array.isArray(access)) return access;
  try {
    const names = await deps.guardrails.alertsLike(access.login, access.team, uri, query.trim(), limits.selectOptions);
    return names.map((name) => ({ text: name, value: name }));
  } catch (error) {
    if (error instanceof NoIntegrationError) return unusable(`No monitoringB integration at ${uri}`);
    if (error instanceof UnauthorizedError) return unusable('Your platform session has ended: log in again');
    throw error;
  }
};
