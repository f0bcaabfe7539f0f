import { z } from 'zod';
import type { CallContext, Request } from './request.ts';
import {
  type AlertB,
  alertBSchema,
  type MonitorA,
  monitorASchema,
  type MonitorSearchA,
  monitorSearchASchema,
} from './schemas.ts';

/** The company's monitoringA integration, as configured on the platform. */
export interface MonitoringAIntegration {
  integrationName: string;
  /** The product's site, e.g. `app.monitoring-a.example`. */
  domain?: string | undefined;
}

export interface MonitorSearchQuery extends MonitoringAIntegration {
  /** Starts at 0. */
  page?: number | undefined;
  perPage?: number | undefined;
  sort?: string | undefined;
}

/** The company's monitoringB integration: its URI, and a name filter. */
export interface MonitoringBQuery {
  uri: string;
  name?: string | undefined;
}

/**
 * Monitors and alerts read through the company's integrations. Without such an integration every
 * call fails with `NoIntegrationError`; an unknown monitor with `NotFoundError`.
 */
export interface MonitoringApi {
  getMonitorA(monitorId: string | number, integration: MonitoringAIntegration): Promise<MonitorA>;
  /** Monitors whose name contains `searchString`, one page (`metadata.total_count` counts them all). */
  searchMonitorsA(searchString: string, query: MonitorSearchQuery): Promise<MonitorSearchA>;
  alertsB(query: MonitoringBQuery): Promise<AlertB[]>;
}

export function monitoringApi(request: Request, session: CallContext): MonitoringApi {
  const team = { session, teamScoped: true, method: 'GET' } as const;
  const integrationA = ({ integrationName, domain }: MonitoringAIntegration) => ({
    monitoringAIntegrationName: integrationName,
    domain,
  });
  return {
    getMonitorA: (monitorId, integration) =>
      request({
        ...team,
        path: '/monitoringA/monitors/{monitorId}',
        params: { monitorId },
        query: integrationA(integration),
        schema: monitorASchema,
      }),
    searchMonitorsA: (searchString, { page, perPage, sort, ...integration }) =>
      request({
        ...team,
        path: '/monitoringA/monitors',
        query: { ...integrationA(integration), searchString, page, perPage, sort },
        schema: monitorSearchASchema,
      }),
    alertsB: ({ uri, name }) =>
      request({
        ...team,
        path: '/monitoringB/alerts',
        query: { monitoringBUri: uri, name },
        schema: z.array(alertBSchema),
      }),
  };
}

/** What a health signal says: only `unhealthy` stops an attack; `unknown` cannot be told either way. */
export type Health = 'healthy' | 'unhealthy' | 'unknown';

/** A monitoringA monitor's health: only `Alert` is unhealthy; `No Data`, `Unknown` or no state cannot be told. */
export function monitorHealth(monitor: Pick<MonitorA, 'overall_state'>): Health {
  switch (monitor.overall_state) {
    case 'Alert':
      return 'unhealthy';
    case 'OK':
    case 'Warn':
    case 'Skipped':
    case 'Ignored':
      return 'healthy';
    default:
      return 'unknown';
  }
}

/** A monitoringB alert's health: only `firing` is unhealthy; a state outside the contract cannot be told. */
export function alertHealth(alert: Pick<AlertB, 'state'>): Health {
  switch (alert.state) {
    case 'firing':
      return 'unhealthy';
    case 'pending':
    case 'inactive':
      return 'healthy';
    default:
      return 'unknown';
  }
}
