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
import { createRequestListener, type RecordedRequest } from './server.ts';
import { SimState } from './state.ts';
import { resolveTargets } from './targets.ts';

export type { Fault } from './faults.ts';
export type { RecordedRequest } from './server.ts';
export type { DemoSeed, DemoUser, NamedEntity } from './seed.ts';
export { SimState } from './state.ts';

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
  addAttacks(teamId: string, count: number, options?: { type?: string; lengthSeconds?: number; createUser?: string }): string[];
  /** Gives the user `count` more teams (TEAM_USER on each); returns their ids. */
  addTeams(userEmail: string, count: number): string[];
  /** Makes sessions expire now: the one with this token, or every session of this e-mail. Returns how many. */
  expireSession(tokenOrEmail: string): number;
  /** Back to the seed: clears attacks, tickets, sessions, faults, recorded requests and the clock offset. */
  reset(): void;
  stop(): Promise<void>;
}

/** Attacks made by `addAttacks` run an hour unless told otherwise, so they stay active through a test. */
const bulkLengthSeconds = 3600;

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const stageMs = (options.stageSeconds ?? 2) * 1000;
  const certificate = await createCertificate();
  const clock = new SimClock();
  const state = new SimState();
  loadDemoData(state);
  const faults = new FaultInjector();
  const requests: RecordedRequest[] = [];
  const deps = { router: new Router(routes), state, clock, faults, requests, stageMs };

  const httpsServer = createHttpsServer({ key: certificate.key, cert: certificate.cert }, createRequestListener(deps, true));
  const httpServer = createHttpServer(createRequestListener(deps, false));
  const servers = [httpsServer, httpServer];
  let ports: number[];
  try {
    ports = [await listen(httpsServer, options.port ?? 0, host), await listen(httpServer, options.httpPort ?? 0, host)];
  } catch (error) {
    await Promise.all(servers.map(close));
    throw error;
  }
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `https://${urlHost}:${ports[0]}/v1`,
    httpUrl: `http://${urlHost}:${ports[1]}/v1`,
    ca: certificate.cert,
    clock,
    faults,
    requests,
    seed: demoSeed(),
    state,

    addAttacks(teamId, count, { type = 'cpu', lengthSeconds = bulkLengthSeconds, createUser } = {}) {
      if (!state.teams.has(teamId)) throw new Error(`No team ${teamId}`);
      const command = validateCommand(type, ['-l', String(lengthSeconds)]);
      const target = { type: 'Random' as const };
      const { targetType, targets } = resolveTargets(state, teamId, target);
      const creator = createUser ?? [...state.users.values()].find((user) => user.teamRoles.has(teamId))?.email ?? 'unknown';
      const now = clock.now();
      return Array.from({ length: count }, () => state.addAttack({
        teamId,
        type: command.type,
        args: [...command.args],
        infraTarget: { ...target },
        targetType,
        targets: [...targets],
        createSource: 'Api',
        createUser: creator,
        source: 'Adhoc',
        timeline: { createdAt: now, runMs: command.lengthSeconds * 1000, ...(targets.length === 0 ? { failure: 'TargetNotFound' as const } : {}) },
      }).guid);
    },

    addTeams(userEmail, count) {
      const user = state.userByEmail(userEmail);
      if (!user) throw new Error(`No user ${userEmail}`);
      const existing = state.teamsOfCompany(user.companyId).length;
      return Array.from({ length: count }, (_, index) => {
        const team = state.addTeam({ id: randomUUID(), companyId: user.companyId, name: `Team ${String(existing + index + 1).padStart(3, '0')}` });
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
      loadDemoData(state);
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
