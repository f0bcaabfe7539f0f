import { NoIntegrationError, NotFoundError } from '../client/errors.ts';
import type { ScopedPlatform } from '../client/index.ts';
import type { MonitorA } from '../client/schemas.ts';

/* The guard form's searches: monitors and alerts found on the platform with the person's session, as they type. */

/** As `--guard b:<name>` accepts it: the name also goes into guard flags and lines. */
export const alertNamePattern = /^[\w.:/-]{1,200}$/;

/** A monitor id typed alone, or the id at the end of an option's text (`name (1234567)`). */
function typedMonitorId(query: string): string | undefined {
  return /^(\d{1,20})$/.exec(query)?.[1] ?? /\((\d{1,20})\)$/.exec(query)?.[1];
}

/** Monitors of a monitoringA integration, by id or name, at most `max`. */
export async function monitorsLike(
  api: ScopedPlatform,
  typed: string,
  where: { integrationName: string; domain: string | undefined },
  max: number,
): Promise<MonitorA[]> {
  const id = typedMonitorId(typed);
  if (id) {
    const monitor = await api.monitoring.getMonitorA(id, where).catch((error: unknown) => {
      // No monitor has that id: the digits may be part of a name.
      if (error instanceof NotFoundError && !(error instanceof NoIntegrationError)) return undefined;
      throw error;
    });
    if (monitor) return [monitor];
  }
  const found = await api.monitoring.searchMonitorsA(typed, { ...where, page: 0, perPage: max });
  return found.monitors.slice(0, max);
}

/**
 * Names of the alerts at a monitoringB URI that hold what was typed, the exact name first, then
 * those starting with it, at most `max`. The platform's `name` filter matches whole names only,
 * so a partial name is matched here, over the list.
 */
export async function alertsLike(api: ScopedPlatform, uri: string, typed: string, max: number): Promise<string[]> {
  const exact = await api.monitoring.alertsB({ uri, name: typed });
  const alerts = exact.some((a) => a.name === typed) ? exact : await api.monitoring.alertsB({ uri });
  const wanted = typed.toLowerCase();
  const names = [...new Set(alerts.map((a) => a.name))].filter(
    (name) => name.toLowerCase().includes(wanted) && alertNamePattern.test(name),
  );
  const rank = (name: string) => (name === typed ? 0 : name.toLowerCase().startsWith(wanted) ? 1 : 2);
  return names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).slice(0, max);
}
