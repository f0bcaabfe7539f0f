import { createHash } from 'node:crypto';
import type { CompanyRoleName, TeamRoleName } from './roles.ts';
import type { AlertState, MonitorState, MonitoringA, MonitoringB, SimState } from './state.ts';

/** The demo data's names and ids, for tests and the README. */
export interface DemoSeed {
  company: NamedEntity;
  /** A second company, for isolation tests. */
  otherCompany: NamedEntity;
  teams: Record<DemoTeamKey, NamedEntity>;
  users: Record<DemoUserKey, DemoUser>;
  /** The code that `sre@acme.test`'s authenticator shows. */
  mfaCode: string;
  /**
   * The demo company signs in through its identity provider too (the simulator plays it): this
   * person has no password, only single sign-on. Past SSO failures are seeded for `sso failures`.
   */
  sso: { email: string; id: string; failures: Array<{ email: string; reason: string; minutesAgo: number }> };
  hosts: Array<{ id: string; teamId: string; tags: Record<string, string> }>;
  containers: Array<{ id: string; teamId: string; hostId: string; labels: Record<string, string> }>;
  kubernetesObjects: Array<{ teamId: string; clusterId: string; namespace: string; kind: string; name: string }>;
  service: { id: string; teamId: string; name: string; hostIds: string[] };
  /** The team with the tracker integration, and defaults that work for its ticket form. */
  tracker: { teamId: string; projectId: string; issueTypeId: string };
  /** The demo company's monitoring integrations (the other company has none). */
  monitoring: {
    a: { integrationName: string; domain: string; monitors: Array<{ id: number; name: string; state: MonitorState }> };
    b: { uri: string; integrationName: string; alerts: Array<{ name: string; state: AlertState }> };
  };
}

export interface NamedEntity {
  id: string;
  name: string;
}

export interface DemoUser {
  email: string;
  password: string;
  id: string;
}

type DemoCompanyKey = 'acme' | 'globex';
type DemoTeamKey = 'platform' | 'payments' | 'search' | 'globex';
type DemoUserKey = 'owner' | 'sre' | 'observer' | 'solo' | 'globex';

const demoPassword = 'chaos-demo-1';
const demoMfaCode = '246810';
const ssoEmail = 'sso@acme.test';
const ssoFailures = [
  { email: ssoEmail, reason: 'The identity provider refused the sign-in: the account is locked', minutesAgo: 90 },
  { email: 'former@acme.test', reason: 'No platform user has this e-mail', minutesAgo: 30 },
];

const companies: Record<DemoCompanyKey, string> = { acme: 'Acme Demo', globex: 'Globex' };

const teams: Record<DemoTeamKey, { company: DemoCompanyKey; name: string; tracker?: boolean }> = {
  platform: { company: 'acme', name: 'Platform', tracker: true },
  payments: { company: 'acme', name: 'Payments' },
  search: { company: 'acme', name: 'Search' },
  globex: { company: 'globex', name: 'Globex Operations' },
};

const users: Record<
  DemoUserKey,
  {
    email: string;
    company: DemoCompanyKey;
    companyRole: CompanyRoleName;
    teams: Partial<Record<DemoTeamKey, TeamRoleName>>;
    mfa?: boolean;
  }
> = {
  owner: {
    email: 'owner@acme.test',
    company: 'acme',
    companyRole: 'COMPANY_OWNER',
    teams: { platform: 'TEAM_OWNER', payments: 'TEAM_OWNER', search: 'TEAM_OWNER' },
  },
  sre: {
    email: 'sre@acme.test',
    company: 'acme',
    companyRole: 'COMPANY_USER',
    teams: { platform: 'TEAM_USER', payments: 'TEAM_USER' },
    mfa: true,
  },
  observer: {
    email: 'observer@acme.test',
    company: 'acme',
    companyRole: 'COMPANY_USER',
    teams: { platform: 'TEAM_OBSERVER' },
  },
  solo: { email: 'solo@acme.test', company: 'acme', companyRole: 'COMPANY_USER', teams: { platform: 'TEAM_USER' } },
  globex: {
    email: 'globex@globex.test',
    company: 'globex',
    companyRole: 'COMPANY_OWNER',
    teams: { globex: 'TEAM_OWNER' },
  },
};

const hosts: Array<{ id: string; team: DemoTeamKey; tags: Record<string, string> }> = [
  { id: 'platform-web-1', team: 'platform', tags: { role: 'web', zone: 'us-east-1a', os: 'linux' } },
  { id: 'platform-web-2', team: 'platform', tags: { role: 'web', zone: 'us-east-1b', os: 'linux' } },
  { id: 'platform-db-1', team: 'platform', tags: { role: 'db', zone: 'us-east-1a', os: 'linux' } },
  { id: 'platform-cache-1', team: 'platform', tags: { role: 'cache', zone: 'us-east-1c', os: 'linux' } },
  { id: 'payments-web-1', team: 'payments', tags: { role: 'web', zone: 'us-east-1a', os: 'linux' } },
  { id: 'payments-db-1', team: 'payments', tags: { role: 'db', zone: 'us-east-1b', os: 'linux' } },
  { id: 'search-web-1', team: 'search', tags: { role: 'web', zone: 'us-east-1b', os: 'linux' } },
  { id: 'search-cache-1', team: 'search', tags: { role: 'cache', zone: 'us-east-1c', os: 'linux' } },
  { id: 'globex-web-1', team: 'globex', tags: { role: 'web', zone: 'eu-west-1a', os: 'linux' } },
];

const containers: Array<{ id: string; host: string; labels: Record<string, string> }> = [
  { id: 'checkout-1', host: 'platform-web-1', labels: { app: 'checkout', tier: 'frontend' } },
  { id: 'checkout-2', host: 'platform-web-2', labels: { app: 'checkout', tier: 'frontend' } },
  { id: 'cart-1', host: 'platform-web-1', labels: { app: 'cart', tier: 'backend' } },
  { id: 'postgres-1', host: 'platform-db-1', labels: { app: 'postgres', tier: 'data' } },
  { id: 'redis-1', host: 'platform-cache-1', labels: { app: 'redis', tier: 'data' } },
  { id: 'payments-api-1', host: 'payments-web-1', labels: { app: 'payments-api', tier: 'backend' } },
  { id: 'ledger-1', host: 'payments-db-1', labels: { app: 'ledger', tier: 'data' } },
  { id: 'search-api-1', host: 'search-web-1', labels: { app: 'search-api', tier: 'backend' } },
  { id: 'globex-shop-1', host: 'globex-web-1', labels: { app: 'shop', tier: 'frontend' } },
];

const kubernetesObjects: Array<{
  team: DemoTeamKey;
  clusterId: string;
  namespace: string;
  kind: string;
  name: string;
}> = [
  { team: 'platform', clusterId: 'acme-prod', namespace: 'checkout', kind: 'Deployment', name: 'checkout' },
  { team: 'platform', clusterId: 'acme-prod', namespace: 'checkout', kind: 'StatefulSet', name: 'cart-db' },
  { team: 'payments', clusterId: 'acme-prod', namespace: 'payments', kind: 'Deployment', name: 'payments-api' },
  { team: 'globex', clusterId: 'globex-eu', namespace: 'shop', kind: 'Deployment', name: 'shop' },
];

const monitoringAIntegration = { integrationName: 'acme-metrics', domain: 'app.monitoring-a.example' };

/** The demo company's monitors: a healthy latency monitor to guard with, and one that cannot be told. */
const monitors: Array<{
  id: number;
  name: string;
  type: string;
  state: MonitorState;
  query: string;
  tags: string[];
  message: string;
}> = [
  {
    id: 1234567,
    name: 'checkout p99 latency',
    type: 'metric alert',
    state: 'OK',
    query: 'avg(last_5m):p99:trace.http.request.duration{service:checkout,env:prod} > 0.8',
    tags: ['team:payments', 'service:checkout'],
    message: 'Checkout p99 latency is above 800 ms. @pagerduty-checkout',
  },
  {
    id: 1234568,
    name: 'checkout error budget burn',
    type: 'slo alert',
    state: 'OK',
    query: 'burn_rate("checkout-availability").over("1h") > 14.4',
    tags: ['team:payments', 'service:checkout'],
    message: 'Checkout is burning its monthly error budget too fast.',
  },
  {
    id: 1234569,
    name: 'cart queue depth',
    type: 'metric alert',
    state: 'No Data',
    query: 'max(last_10m):max:cart.queue.depth{env:prod} > 5000',
    tags: ['team:platform', 'service:cart'],
    message: 'The cart queue is backing up.',
  },
  {
    id: 1234570,
    name: 'search index lag',
    type: 'metric alert',
    state: 'Warn',
    query: 'avg(last_15m):avg:search.index.lag_seconds{env:prod} > 300',
    tags: ['team:search', 'service:search'],
    message: 'Search results are getting stale.',
  },
];

const monitoringBIntegration = { uri: 'https://alerts.monitoring-b.example', integrationName: 'acme-alerting' };

const alerts: Array<{ name: string; state: AlertState; labels: Record<string, string>; summary: string }> = [
  {
    name: 'CheckoutErrorRate',
    state: 'inactive',
    labels: { service: 'checkout', severity: 'page' },
    summary: 'Checkout 5xx rate above 2% for 5 minutes',
  },
  {
    name: 'CartLatencyHigh',
    state: 'inactive',
    labels: { service: 'cart', severity: 'ticket' },
    summary: 'Cart p95 latency above 500 ms',
  },
  {
    name: 'PaymentsQueueBacklog',
    state: 'inactive',
    labels: { service: 'payments-api', severity: 'page' },
    summary: 'Payments queue backlog above 1000 messages',
  },
];

const service = { name: 'checkout', team: 'platform' as const, hostIds: ['platform-web-1', 'platform-web-2'] };

/**
 * Ids derived from names, so they are the same on every start and after `reset()`: a developer
 * running `npm run sim` again keeps the team ids the bot stored.
 */
function stableId(name: string): string {
  const hex = createHash('sha256').update(`faultline-sim/${name}`).digest('hex');
  const variant = (8 + (Number.parseInt(hex[16] ?? '0', 16) % 4)).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const companyId = (key: DemoCompanyKey) => stableId(`company/${key}`);
const teamId = (key: DemoTeamKey) => stableId(`team/${key}`);
const userId = (key: DemoUserKey) => stableId(`user/${key}`);
const hostTeam = new Map(hosts.map((host) => [host.id, host.team]));

function mapValues<K extends string, V, R>(record: Record<K, V>, map: (value: V, key: K) => R): Record<K, R> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value as V, key as K)])) as Record<
    K,
    R
  >;
}

export function demoSeed(): DemoSeed {
  return {
    company: { id: companyId('acme'), name: companies.acme },
    otherCompany: { id: companyId('globex'), name: companies.globex },
    teams: mapValues(teams, (team, key) => ({ id: teamId(key), name: team.name })),
    users: mapValues(users, (user, key) => ({ email: user.email, password: demoPassword, id: userId(key) })),
    mfaCode: demoMfaCode,
    sso: { email: ssoEmail, id: stableId('user/sso'), failures: ssoFailures.map((f) => ({ ...f })) },
    hosts: hosts.map((host) => ({ id: host.id, teamId: teamId(host.team), tags: { ...host.tags } })),
    containers: containers.map((container) => ({
      id: container.id,
      teamId: teamId(hostTeam.get(container.host) ?? 'platform'),
      hostId: container.host,
      labels: { ...container.labels },
    })),
    kubernetesObjects: kubernetesObjects.map(({ team, ...object }) => ({ ...object, teamId: teamId(team) })),
    service: {
      id: stableId(`service/${service.name}`),
      teamId: teamId(service.team),
      name: service.name,
      hostIds: [...service.hostIds],
    },
    tracker: { teamId: teamId('platform'), projectId: '10001', issueTypeId: '10004' },
    monitoring: {
      a: { ...monitoringAIntegration, monitors: monitors.map(({ id, name, state }) => ({ id, name, state })) },
      b: { ...monitoringBIntegration, alerts: alerts.map(({ name, state }) => ({ name, state })) },
    },
  };
}

function demoMonitoringA(now: number): MonitoringA {
  return {
    ...monitoringAIntegration,
    monitors: monitors.map((monitor) => ({ ...monitor, tags: [...monitor.tags], stateChangedAt: now })),
  };
}

function demoMonitoringB(now: number): MonitoringB {
  return {
    ...monitoringBIntegration,
    alerts: alerts.map(({ summary, labels, ...alert }) => ({
      ...alert,
      labels: { alertname: alert.name, ...labels },
      annotations: { summary },
      ...(alert.state === 'inactive' ? {} : { activeAt: now }),
    })),
    rules: [
      { name: 'checkout.rules', uid: 'checkout-rules' },
      { name: 'payments.rules', uid: 'payments-rules' },
    ],
    dashboards: [
      { name: 'Checkout overview', uid: 'checkout-overview', url: `${monitoringBIntegration.uri}/d/checkout-overview` },
      { name: 'Payments latency', uid: 'payments-latency', url: `${monitoringBIntegration.uri}/d/payments-latency` },
    ],
  };
}

/** Fills an empty state with the demo companies, teams, users, clients and integrations. */
export function loadDemoData(state: SimState, now: number): void {
  state.addCompany({
    id: companyId('acme'),
    name: companies.acme,
    sso: true,
    monitoringA: demoMonitoringA(now),
    monitoringB: demoMonitoringB(now),
  });
  state.addCompany({ id: companyId('globex'), name: companies.globex });
  for (const [key, team] of Object.entries(teams)) {
    state.addTeam({
      id: teamId(key as DemoTeamKey),
      companyId: companyId(team.company),
      name: team.name,
      ...(team.tracker ? { tracker: { baseUrl: 'https://tracker.example' } } : {}),
    });
  }
  for (const [key, user] of Object.entries(users)) {
    state.addUser({
      id: userId(key as DemoUserKey),
      email: user.email,
      password: demoPassword,
      companyId: companyId(user.company),
      companyRoles: [user.companyRole],
      teamRoles: new Map(Object.entries(user.teams).map(([team, role]) => [teamId(team as DemoTeamKey), role])),
      ...(user.mfa ? { mfaCode: demoMfaCode } : {}),
    });
  }
  const seed = demoSeed();
  // No password: single sign-on only.
  state.addUser({
    id: seed.sso.id,
    email: seed.sso.email,
    password: '',
    companyId: companyId('acme'),
    companyRoles: ['COMPANY_USER'],
    teamRoles: new Map([[teamId('platform'), 'TEAM_USER']]),
  });
  for (const failure of seed.sso.failures)
    state.samlFailures.push({
      companyId: companyId('acme'),
      email: failure.email,
      reason: failure.reason,
      at: now - failure.minutesAgo * 60_000,
    });
  state.hosts.push(...seed.hosts);
  state.containers.push(...seed.containers);
  state.kubernetesObjects.push(...seed.kubernetesObjects);
  state.services.set(seed.service.id, seed.service);
}
