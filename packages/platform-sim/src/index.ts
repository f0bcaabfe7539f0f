/**
 * The platform simulator: the failure-injection API of platform-api.md and
 * platform-contract.md over real HTTPS, seeded with demo data, for tests and local development.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { validateCommand } from './attackTypes.ts';
import { createCertificate } from './certificate.ts';
import { SimClock } from './clock.ts';
import { FaultInjector, type Fault } from './faults.ts';
import { routes } from './routes/index.ts';
import { Router } from './routing.ts';
import { demoSeed, loadDemoData, type DemoSeed } from './seed.ts';
import { createRequestListener, type RecordedRequest, type ServerDeps } from './server.ts';
import { addContainer, addHost, removeClient, setHostActive, setStopDelay } from './clients.ts';
import { controlPrefix, createControlHandler } from './control.ts';
import { identityProvider } from './identityProvider.ts';
import { alertStates, monitorStates, SimState, type AlertState, type Company, type MonitorState } from './state.ts';
import { infraTargetSchema, resolveTargets } from './targets.ts';

export type { Fault } from './faults.ts';
export type { RecordedRequest } from './server.ts';
export type { DemoSeed, DemoUser, NamedEntity } from './seed.ts';
export { alertStates, monitorStates, SimState } from './state.ts';
export { privilegesOfTeamRole } from './roles.ts';
export type { AlertState, MonitorState } from './state.ts';

export interface SimulatorOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** HTTPS port; default 0 (a free port). */
  port?: number;
  /** Plain-HTTP port; default 0. It serves the same API, except that auth endpoints answer 403. */
  httpPort?: number;
  /** Seconds each transient stage lasts (Pending, Distributed, Initializing, TearingDown, Halt, HaltDistributed); default 2. */
  stageSeconds?: number;
}

export interface Simulator {
  /** 'https://127.0.0.1:<port>/v1' (the PLATFORM_API_URL). */
  url: string;
  /** 'http://127.0.0.1:<port>/v1'. */
  httpUrl: string;
  /**
   * 'https://127.0.0.1:<port>/_control': the control surface (control.ts), outside the platform
   * API, where monitors and alerts change state and attacks start as if from the web UI.
   * The plain-HTTP port serves it too.
   */
  controlUrl: string;
  /** PEM of the self-signed certificate; trust it with `new Agent({ connect: { ca } })`. */
  ca: string;
  /** Simulated time (real time plus an offset); stages move on as it passes. */
  clock: { now(): number; advance(ms: number): void };
  faults: { inject(fault: Fault): void; clear(): void };
  /** Every request received, in order. */
  requests: RecordedRequest[];
  seed: DemoSeed;
  /** The live data, for assertions. */
  state: SimState;
  /** Bulk-creates active attacks on every client of the team; returns their guids, oldest first. */
  addAttacks(
    teamId: string,
    count: number,
    options?: { type?: string; lengthSeconds?: number; createUser?: string },
  ): string[];
  /**
   * Creates one attack as someone working on the platform directly would (the web UI, a script
   * with an API key, a scenario), not through the API the bot uses; returns its guid.
   * Defaults: a 60-second cpu attack on every client of the team, created from `WebApp` by a member of the team.
   */
  createAttackDirectly(teamId: string, options?: DirectAttack): string;
  /**
   * Makes a target (a host or container id, or a Kubernetes attack's target) keep running when its attack is
   * halted, as an agent that lost contact would, or (false) take halts again: a later halt then
   * reaches it.
   */
  ignoreHalts(clientId: string, ignore?: boolean): void;
  /**
   * Makes a target (a host or container id, or a Kubernetes attack's target) stop `ms` later than
   * the others once a halt reaches it, or (0) at once: its execution stays halting meanwhile, and so
   * does its attack. It applies to halts from now on.
   */
  delayStop(clientId: string, ms: number): void;
  /** Changes a team's clients (GET /clients) as its agents would; attacks made later resolve against them. */
  clients: {
    /** A new host reports to the team. */
    addHost(teamId: string, id: string, tags?: Record<string, string>): void;
    /** A new container runs on a host, in the host's team. */
    addContainer(hostId: string, id: string, labels?: Record<string, string>): void;
    /** The host (with its containers) or container is gone. */
    remove(id: string): void;
    /** The host's agent stops reporting (attacks skip it and its containers), or reports again. */
    setActive(hostId: string, active: boolean): void;
  };
  /** Sets a monitoringA monitor's `overall_state` (found by id in any company). */
  setMonitorState(monitorId: number, state: MonitorState): void;
  /** Sets the state of a monitoringB alert (found by name; in the demo company unless a company id is given). */
  setAlertState(name: string, state: AlertState, companyId?: string): void;
  /** Adds a monitor to a company's monitoringA integration (default: the demo company's); returns its id. */
  addMonitor(
    monitor: { name: string; state?: MonitorState; type?: string; tags?: string[] },
    companyId?: string,
  ): number;
  /** Adds an alert to a company's monitoringB integration (default: the demo company's). */
  addAlert(alert: { name: string; state?: AlertState; labels?: Record<string, string> }, companyId?: string): void;
  /** The monitoringA provider refuses the next `times` monitor reads with 429 and `Retry-After`. */
  rateLimitMonitoringA(times: number, retryAfterSeconds?: number, companyId?: string): void;
  /**
   * Points a team's tracker integration at another base URL: issues filed from now on link to
   * `<baseUrl>/browse/<key>`, whatever the text, as a misconfigured or hostile tracker could.
   */
  setTrackerBaseUrl(teamId: string, baseUrl: string): void;
  /** Gives the user `count` more teams (TEAM_USER on each); returns their ids. */
  addTeams(userEmail: string, count: number): string[];
  /** Makes sessions expire now: the one with this token, or every session of this e-mail. Returns how many. */
  expireSession(tokenOrEmail: string): number;
  /** Back to the seed: clears attacks, tickets, sessions, faults, recorded requests and the clock offset. */
  reset(): void;
  stop(): Promise<void>;
}

export interface DirectAttack {
  type?: string;
  /** Default `['-l', '60']`. */
  args?: string[];
  /** The legacy target (platform-api.md, Resources); default every client of the team. */
  target?: unknown;
  /** `WebApp` unless told, e.g. `Api` or `Scenario`. */
  createSource?: string;
  /** The creator's e-mail; default the first member of the team. */
  createUser?: string;
  source?: 'Adhoc' | 'Scenario';
  /** Its guid, e.g. one that begins as another's does; a new random one otherwise. */
  guid?: string;
}

/** Attacks made by `addAttacks` run an hour unless told otherwise, so they stay active through a test. */
const bulkLengthSeconds = 3600;

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const stageMs = (options.stageSeconds ?? 2) * 1000;
  const certificate = await createCertificate();
  const clock = new SimClock();
  const state = new SimState();
  loadDemoData(state, clock.now());
  const faults = new FaultInjector();
  const requests: RecordedRequest[] = [];
  const demoCompanyId = demoSeed().company.id;
  const deps: ServerDeps = { router: new Router(routes), state, clock, faults, requests, stageMs };
  // Function declarations below, hoisted: the control surface changes the world as the in-process API does.
  deps.control = createControlHandler({ state, setMonitorState, setAlertState, createAttackDirectly, ignoreHalts });
  deps.identityProvider = identityProvider;

  const httpsServer = createHttpsServer(
    { key: certificate.key, cert: certificate.cert },
    createRequestListener(deps, true),
  );
  const httpServer = createHttpServer(createRequestListener(deps, false));
  const servers = [httpsServer, httpServer];
  let ports: number[];
  try {
    ports = [await listen(httpsServer, options.port ?? 0, host), await listen(httpServer, options.httpPort ?? 0, host)];
  } catch (error) {
    await Promise.all(servers.map(close));
    throw error;
  }
  function ignoreHalts(clientId: string, ignore = true): void {
    if (ignore) state.deafTargets.add(clientId);
    else state.deafTargets.delete(clientId);
  }

  function companyOf(companyId: string): Company {
    const company = state.companies.get(companyId);
    if (!company) throw new Error(`No company ${companyId}`);
    return company;
  }

  function integrationA(companyId: string) {
    const integration = companyOf(companyId).monitoringA;
    if (!integration) throw new Error(`Company ${companyId} has no monitoringA integration`);
    return integration;
  }

  function integrationB(companyId: string) {
    const integration = companyOf(companyId).monitoringB;
    if (!integration) throw new Error(`Company ${companyId} has no monitoringB integration`);
    return integration;
  }

  function setMonitorState(monitorId: number, monitorState: MonitorState): void {
    if (!(monitorStates as readonly string[]).includes(monitorState))
      throw new RangeError(`A monitor's state is one of ${monitorStates.join(', ')}`);
    const monitor = [...state.companies.values()]
      .flatMap((company) => company.monitoringA?.monitors ?? [])
      .find((candidate) => candidate.id === monitorId);
    if (!monitor) throw new Error(`No monitor ${monitorId}`);
    if (monitor.state !== monitorState) monitor.stateChangedAt = clock.now();
    monitor.state = monitorState;
  }

  function setAlertState(name: string, alertState: AlertState, companyId = demoCompanyId): void {
    if (!(alertStates as readonly string[]).includes(alertState))
      throw new RangeError(`An alert's state is one of ${alertStates.join(', ')}`);
    const alert = integrationB(companyId).alerts.find((candidate) => candidate.name === name);
    if (!alert) throw new Error(`No alert ${name}`);
    // active_at is when the alert became active (pending or firing); an inactive alert has none.
    if (alertState === 'inactive') delete alert.activeAt;
    else if (alert.state === 'inactive') alert.activeAt = clock.now();
    alert.state = alertState;
  }

  function createAttackDirectly(
    teamId: string,
    {
      type = 'cpu',
      args = ['-l', '60'],
      target = { type: 'Random' },
      createSource = 'WebApp',
      createUser,
      source = 'Adhoc',
      guid,
    }: DirectAttack = {},
  ): string {
    if (!state.teams.has(teamId)) throw new Error(`No team ${teamId}`);
    const command = validateCommand(type, args);
    const infraTarget = infraTargetSchema.parse(target);
    const { targetType, targets } = resolveTargets(state, teamId, infraTarget);
    const creator =
      createUser ?? [...state.users.values()].find((user) => user.teamRoles.has(teamId))?.email ?? 'unknown';
    const now = clock.now();
    if (guid !== undefined && state.attacks.has(guid)) throw new Error(`An attack ${guid} exists already`);
    return state.addAttack({
      guid,
      teamId,
      type: command.type,
      args: [...command.args],
      infraTarget: structuredClone(infraTarget),
      targetType,
      targets,
      createSource,
      createUser: creator,
      source,
      timeline: {
        createdAt: now,
        runMs: command.lengthSeconds * 1000,
        ...(targets.length === 0 ? { failure: 'TargetNotFound' as const } : {}),
      },
    }).guid;
  }

  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `https://${urlHost}:${ports[0]}/v1`,
    httpUrl: `http://${urlHost}:${ports[1]}/v1`,
    controlUrl: `https://${urlHost}:${ports[0]}${controlPrefix}`,
    ca: certificate.cert,
    clock,
    faults,
    requests,
    seed: demoSeed(),
    state,

    addAttacks(teamId, count, { type = 'cpu', lengthSeconds = bulkLengthSeconds, createUser } = {}) {
      const attack = {
        type,
        args: ['-l', String(lengthSeconds)],
        createSource: 'Api',
        ...(createUser ? { createUser } : {}),
      };
      return Array.from({ length: count }, () => createAttackDirectly(teamId, attack));
    },

    createAttackDirectly: (teamId, options) => createAttackDirectly(teamId, options),

    ignoreHalts,
    delayStop: (clientId, ms) => setStopDelay(state, clientId, ms),
    clients: {
      addHost: (teamId, id, tags) => void addHost(state, teamId, id, tags),
      addContainer: (hostId, id, labels) => void addContainer(state, hostId, id, labels),
      remove: (id) => removeClient(state, id),
      setActive: (hostId, active) => void setHostActive(state, hostId, active, clock.now()),
    },
    setMonitorState,
    setAlertState,

    addMonitor({ name, state: monitorState = 'OK', type = 'metric alert', tags = [] }, companyId = demoCompanyId) {
      const integration = integrationA(companyId);
      const id =
        Math.max(
          0,
          ...[...state.companies.values()].flatMap(
            (company) => company.monitoringA?.monitors.map((monitor) => monitor.id) ?? [],
          ),
        ) + 1;
      integration.monitors.push({
        id,
        name,
        type,
        state: monitorState,
        stateChangedAt: clock.now(),
        query: `avg(last_5m):avg:${name.replaceAll(' ', '.')} > 1`,
        tags: [...tags],
        message: `${name} is unhealthy.`,
      });
      return id;
    },

    addAlert({ name, state: alertState = 'inactive', labels = {} }, companyId = demoCompanyId) {
      integrationB(companyId).alerts.push({
        name,
        state: alertState,
        labels: { alertname: name, ...labels },
        annotations: { summary: name },
        ...(alertState === 'inactive' ? {} : { activeAt: clock.now() }),
      });
    },

    rateLimitMonitoringA(times, retryAfterSeconds = 1, companyId = demoCompanyId) {
      if (!Number.isInteger(times) || times < 0) throw new RangeError('times must be a whole number');
      integrationA(companyId).rateLimit = { remaining: times, retryAfterSeconds };
    },

    setTrackerBaseUrl(teamId, baseUrl) {
      const team = state.teams.get(teamId);
      if (!team?.tracker) throw new Error(`Team ${teamId} has no tracker integration`);
      team.tracker.baseUrl = baseUrl;
    },

    addTeams(userEmail, count) {
      const user = state.userByEmail(userEmail);
      if (!user) throw new Error(`No user ${userEmail}`);
      const existing = state.teamsOfCompany(user.companyId).length;
      return Array.from({ length: count }, (_, index) => {
        const team = state.addTeam({
          id: randomUUID(),
          companyId: user.companyId,
          name: `Team ${String(existing + index + 1).padStart(3, '0')}`,
        });
        user.teamRoles.set(team.id, 'TEAM_USER');
        return team.id;
      });
    },

    expireSession(tokenOrEmail) {
      const user = state.userByEmail(tokenOrEmail);
      const now = clock.now();
      let expired = 0;
      for (const session of state.sessions.values()) {
        if (session.token !== tokenOrEmail && session.userId !== user?.id) continue;
        session.expiresAt = Math.min(session.expiresAt, now);
        expired++;
      }
      return expired;
    },

    reset() {
      faults.clear();
      clock.reset();
      state.clear();
      loadDemoData(state, clock.now());
      requests.length = 0;
    },

    async stop() {
      faults.clear();
      await Promise.all(servers.map(close));
    },
  };
}

function listen(server: HttpServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
