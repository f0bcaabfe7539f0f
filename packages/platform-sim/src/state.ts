import { randomUUID } from 'node:crypto';
import type { CompanyRoleName, TeamRoleName } from './roles.ts';
import type { Timeline } from './stages.ts';

export interface Company {
  id: string;
  name: string;
  /** Its people may sign in through its identity provider (GET /oauth/login), which the simulator plays. */
  sso?: boolean;
  /** The company's monitoringA integration (a metrics product with monitors), when it has one. */
  monitoringA?: MonitoringA;
  /** The company's monitoringB integration (an alerting product at a URI), when it has one. */
  monitoringB?: MonitoringB;
}

/** Values of a monitoringA monitor's `overall_state`; only `Alert` means unhealthy. */
export const monitorStates = ['OK', 'Warn', 'Alert', 'No Data', 'Skipped', 'Ignored', 'Unknown'] as const;
export type MonitorState = (typeof monitorStates)[number];

/** Values of a monitoringB alert's `state`; only `firing` means unhealthy. */
export const alertStates = ['firing', 'pending', 'inactive'] as const;
export type AlertState = (typeof alertStates)[number];

export interface Monitor {
  id: number;
  name: string;
  type: string;
  state: MonitorState;
  /** When `state` last changed. */
  stateChangedAt: number;
  query: string;
  tags: string[];
  message: string;
}

export interface MonitoringA {
  integrationName: string;
  /** The product's site, e.g. `app.monitoring-a.example`. */
  domain: string;
  monitors: Monitor[];
  /** How many more monitor reads the provider refuses with 429 (its rate limit), and the wait it asks for. */
  rateLimit?: { remaining: number; retryAfterSeconds: number };
}

export interface Alert {
  name: string;
  state: AlertState;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** When the alert last became pending or firing; absent while inactive. */
  activeAt?: number;
}

export interface NamedLink {
  name: string;
  uid?: string;
  url?: string;
}

export interface MonitoringB {
  /** The product's URI, e.g. `https://alerts.monitoring-b.example`. */
  uri: string;
  /** The integration name GET /monitoringB/monitors takes. */
  integrationName: string;
  alerts: Alert[];
  rules: NamedLink[];
  dashboards: NamedLink[];
}

export interface Team {
  id: string;
  companyId: string;
  name: string;
  /** Present when the team has an issue-tracker integration. */
  tracker?: { baseUrl: string };
}

export interface OAuthState {
  companyId: string;
  redirectUri: string;
  expiresAt: number;
  used: boolean;
}

export interface OAuthCode {
  userId: string;
  state: string;
  expiresAt: number;
  used: boolean;
}

export interface SamlFailure {
  companyId: string;
  email: string;
  reason: string;
  at: number;
}

export interface User {
  id: string;
  email: string;
  /** Empty for a person who signs in only through the identity provider. */
  password: string;
  companyId: string;
  companyRoles: CompanyRoleName[];
  /** Role per team id. */
  teamRoles: Map<string, TeamRoleName>;
  /** The one-time code the user's authenticator shows, when MFA is enabled. */
  mfaCode?: string;
  lastLoginAt?: number;
}

export interface Session {
  token: string;
  renewToken: string;
  userId: string;
  /** A company session spans the company's teams; a team session is bound to one team (org). */
  kind: 'company' | 'team';
  teamId?: string;
  createdAt: number;
  expiresAt: number;
  loggedOut: boolean;
}

export interface Host {
  id: string;
  teamId: string;
  tags: Record<string, string>;
  /** False once its agent stopped reporting: attacks skip it and its containers. Absent: active. */
  active?: boolean;
  /** When its agent last reported, kept once it stopped; an active agent reports all the time. */
  lastSeenAt?: number;
}

export interface Container {
  id: string;
  teamId: string;
  hostId: string;
  labels: Record<string, string>;
}

export interface KubernetesObject {
  teamId: string;
  clusterId: string;
  namespace: string;
  kind: string;
  name: string;
}

export interface Service {
  id: string;
  teamId: string;
  name: string;
  hostIds: string[];
}

export interface HaltNote {
  reason?: string;
  reference?: string;
  by: string;
}

export interface Attack {
  guid: string;
  /** Creation order within the team; the paging cursor. */
  seq: number;
  teamId: string;
  type: string;
  args: string[];
  /** The target exactly as the creation request gave it. */
  infraTarget: unknown;
  /** The whole body of the request that created it, as sent, for attacks made by POST /attacks. */
  createRequest?: unknown;
  targetType: 'Host' | 'Container';
  targets: string[];
  /** One execution per target, in the order of `targets`. */
  executionIds: string[];
  createSource: string;
  createUser: string;
  source: 'Adhoc' | 'Scenario';
  annotations: Record<string, string>;
  annotatedAt?: number;
  timeline: Timeline;
  halt?: HaltNote;
}

export interface KubernetesAttack {
  guid: string;
  seq: number;
  teamId: string;
  cliArgs: string[];
  objects: KubernetesObject[];
  count?: number;
  percentage?: number;
  /** The whole body of the request that created it, as sent. */
  createRequest?: unknown;
  targets: string[];
  /** One execution per target, in the order of `targets`. */
  executionIds: string[];
  createSource: string;
  createUser: string;
  source: 'Adhoc' | 'Scenario';
  timeline: Timeline;
  halt?: HaltNote;
}

export interface TrackerIssue {
  key: string;
  url: string;
  teamId: string;
  summary: string;
  description: string;
  status: string;
  entity: { id: string; type: string };
  fields: Record<string, unknown>;
  createdAt: number;
}

export interface PasswordResetRequest {
  email: string;
  at: number;
}

export type NewAttack = Omit<Attack, 'guid' | 'seq' | 'executionIds' | 'annotations'> & {
  annotations?: Record<string, string>;
  /** A guid of the caller's choosing; a new random one otherwise. */
  guid?: string | undefined;
};
export type NewKubernetesAttack = Omit<KubernetesAttack, 'guid' | 'seq' | 'executionIds'>;

const sessionLifetimeMs = 12 * 60 * 60 * 1000;

/**
 * The simulator's live data. Everything that belongs to a team carries its team id, and every
 * lookup made on behalf of a caller goes through the team, so nothing crosses teams or companies.
 */
export class SimState {
  readonly companies = new Map<string, Company>();
  readonly teams = new Map<string, Team>();
  readonly users = new Map<string, User>();
  readonly sessions = new Map<string, Session>();
  readonly hosts: Host[] = [];
  readonly containers: Container[] = [];
  readonly kubernetesObjects: KubernetesObject[] = [];
  readonly services = new Map<string, Service>();
  readonly attacks = new Map<string, Attack>();
  readonly kubernetesAttacks = new Map<string, KubernetesAttack>();
  readonly trackerIssues: TrackerIssue[] = [];
  readonly passwordResets: PasswordResetRequest[] = [];
  /** OAuth logins started (GET /oauth/login), by the `state` handed to the identity provider. */
  readonly oauthStates = new Map<string, OAuthState>();
  /** Codes the identity provider gave a signed-in person, for GET /oauth/callback. */
  readonly oauthCodes = new Map<string, OAuthCode>();
  /** Why SSO sign-ins failed, oldest first (GET /users/auth/saml/failures). */
  readonly samlFailures: SamlFailure[] = [];
  /** Targets (client ids) whose agent does not take halts: their executions run on (`/_control`). */
  readonly deafTargets = new Set<string>();
  /** Targets (client ids) whose agent stops this many milliseconds after a halt reaches it (`/_control`). */
  readonly stopDelays = new Map<string, number>();

  // Per-team lists in creation order, so that a page is found without scanning other teams.
  #attacksByTeam = new Map<string, Attack[]>();
  #kubernetesAttacksByTeam = new Map<string, KubernetesAttack[]>();

  /** Empties everything (the seed is loaded again by the caller). */
  clear(): void {
    for (const map of [
      this.companies,
      this.teams,
      this.users,
      this.sessions,
      this.services,
      this.attacks,
      this.kubernetesAttacks,
      this.oauthStates,
      this.oauthCodes,
      this.stopDelays,
    ])
      map.clear();
    for (const list of [
      this.hosts,
      this.containers,
      this.kubernetesObjects,
      this.trackerIssues,
      this.passwordResets,
      this.samlFailures,
    ])
      list.length = 0;
    this.#attacksByTeam.clear();
    this.#kubernetesAttacksByTeam.clear();
    this.deafTargets.clear();
  }

  addCompany(company: Company): Company {
    this.companies.set(company.id, company);
    return company;
  }

  addTeam(team: Team): Team {
    this.teams.set(team.id, team);
    return team;
  }

  addUser(user: User): User {
    this.users.set(user.id, user);
    return user;
  }

  userByEmail(email: string): User | undefined {
    const wanted = email.trim().toLowerCase();
    for (const user of this.users.values()) if (user.email.toLowerCase() === wanted) return user;
    return undefined;
  }

  teamsOf(user: User): Team[] {
    return [...user.teamRoles.keys()].flatMap((id) => this.teams.get(id) ?? []);
  }

  createSession(user: User, kind: Session['kind'], now: number, teamId?: string): Session {
    const session: Session = {
      token: randomUUID(),
      renewToken: randomUUID(),
      userId: user.id,
      kind,
      ...(teamId ? { teamId } : {}),
      createdAt: now,
      expiresAt: now + sessionLifetimeMs,
      loggedOut: false,
    };
    this.sessions.set(session.token, session);
    return session;
  }

  /** The session behind a token, if it is still valid at `now`. */
  liveSession(token: string, now: number): Session | undefined {
    const session = this.sessions.get(token);
    if (!session || session.loggedOut || now >= session.expiresAt) return undefined;
    return session;
  }

  hostsOf(teamId: string): Host[] {
    return this.hosts.filter((host) => host.teamId === teamId);
  }

  containersOf(teamId: string): Container[] {
    return this.containers.filter((container) => container.teamId === teamId);
  }

  kubernetesObjectsOf(teamId: string): KubernetesObject[] {
    return this.kubernetesObjects.filter((object) => object.teamId === teamId);
  }

  serviceOf(teamId: string, serviceId: string): Service | undefined {
    return ofTeam(teamId, this.services.get(serviceId));
  }

  addAttack(input: NewAttack): Attack {
    return addForTeam(this.attacks, this.#attacksByTeam, input.teamId, (seq) => ({
      ...input,
      guid: input.guid ?? randomUUID(),
      seq,
      annotations: input.annotations ?? {},
      executionIds: input.targets.map(() => randomUUID()),
    }));
  }

  /** The team's attacks, oldest first. */
  attacksOf(teamId: string): readonly Attack[] {
    return this.#attacksByTeam.get(teamId) ?? [];
  }

  attackOf(teamId: string, guid: string): Attack | undefined {
    return ofTeam(teamId, this.attacks.get(guid));
  }

  addKubernetesAttack(input: NewKubernetesAttack): KubernetesAttack {
    return addForTeam(this.kubernetesAttacks, this.#kubernetesAttacksByTeam, input.teamId, (seq) => ({
      ...input,
      guid: randomUUID(),
      seq,
      executionIds: input.targets.map(() => randomUUID()),
    }));
  }

  kubernetesAttacksOf(teamId: string): readonly KubernetesAttack[] {
    return this.#kubernetesAttacksByTeam.get(teamId) ?? [];
  }

  kubernetesAttackOf(teamId: string, guid: string): KubernetesAttack | undefined {
    return ofTeam(teamId, this.kubernetesAttacks.get(guid));
  }

  teamsOfCompany(companyId: string): Team[] {
    return [...this.teams.values()].filter((team) => team.companyId === companyId);
  }
}

/**
 * Sequence numbers count per team, so that a page token reveals nothing about other teams or
 * companies. Nothing is ever deleted, so the last one is the highest.
 */
function nextSeq(list: readonly { seq: number }[]): number {
  return (list.at(-1)?.seq ?? 0) + 1;
}

/** Keeps a new record by guid and at the end of its team's list, numbered after the team's last one. */
function addForTeam<T extends { guid: string; seq: number }>(
  byGuid: Map<string, T>,
  byTeam: Map<string, T[]>,
  teamId: string,
  create: (seq: number) => T,
): T {
  let list = byTeam.get(teamId);
  if (!list) byTeam.set(teamId, (list = []));
  const record = create(nextSeq(list));
  byGuid.set(record.guid, record);
  list.push(record);
  return record;
}

/** The record if it belongs to the team: another team's record is as good as missing to a caller. */
function ofTeam<T extends { teamId: string }>(teamId: string, record: T | undefined): T | undefined {
  return record?.teamId === teamId ? record : undefined;
}
