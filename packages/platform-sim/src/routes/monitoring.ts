/**
 * Monitors (monitoringA) and alerts (monitoringB), read through the caller's company's
 * integrations (platform-contract.md, "Monitors (monitoringA) and alerts (monitoringB)").
 */
import { alertResponse, monitorResponse } from '../records.ts';
import { json, queryValue, SimHttpError, teamRoute, type Query, type Route, type TeamContext } from '../route.ts';
import type { MonitoringA, MonitoringB, NamedLink } from '../state.ts';
import { noIntegrationText } from './tracker.ts';

/** The monitoring and tracker endpoints answer a bad request with these words alone (platform-api.md, Errors). */
const badRequestText = 'Bad request';
const rateLimitedText = 'Rate limit exceeded';
const defaultPerPage = 30;
const maxPerPage = 1000;

export const monitoringRoutes: Route[] = [
  teamRoute('GET', '/monitoringA/monitors/:monitorId', 'MINIMUM_TEAM_PRIVILEGES', getMonitor),
  teamRoute('GET', '/monitoringA/monitors', 'MINIMUM_TEAM_PRIVILEGES', searchMonitors),
  teamRoute('GET', '/monitoringB/alerts', 'MINIMUM_TEAM_PRIVILEGES', (context) =>
    json(
      200,
      monitoringB(context)
        .alerts.filter(named(context.query))
        .map((alert) => alertResponse(alert)),
    ),
  ),
  teamRoute('GET', '/monitoringB/rules', 'MINIMUM_TEAM_PRIVILEGES', (context) =>
    json(200, monitoringB(context).rules.filter(named(context.query)).map(linkResponse)),
  ),
  teamRoute('GET', '/monitoringB/dashboards', 'MINIMUM_TEAM_PRIVILEGES', (context) =>
    json(200, monitoringB(context).dashboards.filter(named(context.query)).map(linkResponse)),
  ),
  teamRoute('GET', '/monitoringB/monitors', 'MINIMUM_TEAM_PRIVILEGES', listAlertMonitors),
];

function required(query: Query, name: string): string {
  const value = queryValue(query, name)?.trim();
  if (!value) throw new SimHttpError(400, badRequestText);
  return value;
}

/**
 * The company's monitoringA integration named in the query. A name or domain the company has not
 * configured is as good as no integration. Reading through it spends the provider's rate limit.
 */
function monitoringA({ query, caller }: TeamContext): MonitoringA {
  const name = required(query, 'monitoringAIntegrationName');
  const domain = queryValue(query, 'domain')?.trim();
  const integration = caller.company.monitoringA;
  if (!integration || integration.integrationName !== name || (domain && domain !== integration.domain)) {
    throw new SimHttpError(404, noIntegrationText);
  }
  const limit = integration.rateLimit;
  if (limit && limit.remaining > 0) {
    limit.remaining -= 1;
    throw new SimHttpError(429, rateLimitedText, { 'retry-after': String(limit.retryAfterSeconds) });
  }
  return integration;
}

function getMonitor(context: TeamContext) {
  const integration = monitoringA(context);
  const raw = context.params.monitorId ?? '';
  const monitor = /^\d{1,15}$/.test(raw)
    ? integration.monitors.find((candidate) => candidate.id === Number(raw))
    : undefined;
  if (!monitor) throw new SimHttpError(404, 'Not found');
  return json(200, monitorResponse(monitor));
}

/** A whole number from the query within [min, max], or the fallback when absent. */
function wholeNumber(query: Query, name: string, fallback: number, min: number, max: number): number {
  const raw = queryValue(query, name);
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw new SimHttpError(400, badRequestText);
  return value;
}

/** `searchString` matches names, case-insensitively; `page` starts at 0. */
function searchMonitors(context: TeamContext) {
  const integration = monitoringA(context);
  const { query } = context;
  const page = wholeNumber(query, 'page', 0, 0, 2 ** 31 - 1);
  const perPage = wholeNumber(query, 'perPage', defaultPerPage, 1, maxPerPage);
  const search = (queryValue(query, 'searchString') ?? '').trim().toLowerCase();
  const sort = queryValue(query, 'sort');
  const matching = integration.monitors.filter((monitor) => monitor.name.toLowerCase().includes(search));
  if (sort === 'name,asc' || sort === 'name') matching.sort((a, b) => a.name.localeCompare(b.name));
  else if (sort === 'name,desc') matching.sort((a, b) => b.name.localeCompare(a.name));
  const monitors = matching.slice(page * perPage, (page + 1) * perPage);
  return json(200, {
    monitors: monitors.map(monitorResponse),
    metadata: { page, per_page: perPage, total_count: matching.length },
  });
}

/** The company's monitoringB integration at the URI in the query. */
function monitoringB({ query, caller }: TeamContext): MonitoringB {
  const uri = required(query, 'monitoringBUri');
  const integration = caller.company.monitoringB;
  if (!integration || normalUri(integration.uri) !== normalUri(uri)) throw new SimHttpError(404, noIntegrationText);
  return integration;
}

function normalUri(uri: string): string {
  return uri.trim().replace(/\/+$/, '').toLowerCase();
}

/** The optional `name` filter: an exact name. */
function named(query: Query): (item: { name: string }) => boolean {
  const name = queryValue(query, 'name')?.trim();
  return (item) => !name || item.name === name;
}

function linkResponse(link: NamedLink) {
  return {
    name: link.name,
    ...(link.uid !== undefined ? { uid: link.uid } : {}),
    ...(link.url !== undefined ? { url: link.url } : {}),
  };
}

/** GET /monitoringB/monitors: the alert rules as monitors, found by integration name and `searchString`. */
function listAlertMonitors({ query, caller }: TeamContext) {
  const name = required(query, 'monitoringBIntegrationName');
  const integration = caller.company.monitoringB;
  if (!integration || integration.integrationName !== name) throw new SimHttpError(404, noIntegrationText);
  const search = (queryValue(query, 'searchString') ?? '').trim().toLowerCase();
  return json(
    200,
    integration.alerts
      .filter((alert) => alert.name.toLowerCase().includes(search))
      .map((alert) => ({ name: alert.name, id: alertMonitorId(alert.name), state: alert.state })),
  );
}

/** A stable id for an alert rule, derived from its name. */
function alertMonitorId(name: string): string {
  return Buffer.from(name).toString('base64url');
}
