/**
 * Typed client of the failure-injection platform (platform-api.md with platform-contract.md).
 *
 *   const platform = createPlatformClient({ baseUrl: config.platformApiUrl, logger });
 *   const session = await platform.auth.login({ email, password });
 *   const active = await platform.as({ header: session.header, teamId }).attacks.listActive();
 */
import { isIP } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import { attacksApi, type AttacksApi } from './attacks.ts';
import { authApi, type AuthApi } from './auth.ts';
import { metadataApi, type MetadataApi } from './catalogue.ts';
import { type ClientsApi, clientsApi } from './clients.ts';
import { InsecureUrlError } from './errors.ts';
import { kubernetesApi, type KubernetesApi } from './kubernetes.ts';
import { monitoringApi, type MonitoringApi } from './monitoring.ts';
import { type CallContext, createRequest, type Logger, silentLogger } from './request.ts';
import { defaultRetryPolicy, type RetryPolicy } from './retry.ts';
import { trackerApi, type TrackerApi } from './tracker.ts';

export interface PlatformClientOptions {
  /** Ends in `/v1`; `http:` only for loopback hosts, else `InsecureUrlError`. */
  baseUrl: string;
  /** Default: one keep-alive Agent owned (and closed) by the client. */
  dispatcher?: Dispatcher;
  /** People's calls under way at once before one more is refused with BusyError; default 64. */
  maxWaitingCalls?: number;
  /** Per request attempt, headers and body together; default 10 s. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Gets method, path, status and duration; never headers, bodies, passwords or tokens. */
  logger?: Logger;
  /** Waits between retries; injectable so tests need not wait. */
  sleep?: (ms: number) => Promise<void>;
  userAgent?: string;
}

/** Everything that needs a session, made as one caller (and team, for company sessions). */
export interface ScopedPlatform {
  attacks: AttacksApi;
  /** The team's hosts and containers, to resolve a target before an attack is made. */
  clients: ClientsApi;
  kubernetes: KubernetesApi;
  metadata: MetadataApi;
  tracker: TrackerApi;
  monitoring: MonitoringApi;
}

export interface PlatformClient {
  auth: AuthApi;
  as(ctx: CallContext): ScopedPlatform;
  /** Closes the connections of the client's own Agent; an injected dispatcher is left open. */
  close(): Promise<void>;
}

/**
 * Connections to the platform at most, per origin; more calls than this wait their turn (and time
 * out with the rest of their deadline). A person's bot makes a few calls at a time and a poll pass
 * one list per team, so a handful of kept-alive connections carry it; a large pool only lets a
 * burst pile calls on a platform that is already slow, and opens a TLS connection for each.
 */
const maxConnections = 16;

/**
 * Calls made for people that may be under way at once (see BusyError): four rounds of the pool.
 * With the platform taking 2 s a call, the last of them gets a connection after about 8 s, within
 * its 10 s deadline; a call queued behind more would mostly wait out its deadline for nothing.
 */
const maxWaitingCalls = 4 * maxConnections;

/** Connections kept for halts, so that a halt never waits for a connection behind people's reads. */
const haltConnections = 4;

/** How long one platform call may take unless told otherwise; a create not answered by then has an unknown outcome. */
export const platformTimeoutMs = 10_000;

export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const baseUrl = parseBaseUrl(options.baseUrl);
  // A bounded pool: when the platform hangs, calls queue for a connection (and time out) rather
  // than open one socket each until the process runs out of file descriptors.
  const ownedAgent = options.dispatcher
    ? undefined
    : new Agent({ connections: maxConnections, keepAliveTimeout: 30_000 });
  const haltAgent = options.dispatcher
    ? undefined
    : new Agent({ connections: haltConnections, keepAliveTimeout: 30_000 });
  const request = createRequest({
    baseUrl,
    dispatcher: options.dispatcher ?? ownedAgent!,
    urgentDispatcher: haltAgent,
    maxWaiting: options.maxWaitingCalls ?? maxWaitingCalls,
    timeoutMs: options.timeoutMs ?? platformTimeoutMs,
    retry: { ...defaultRetryPolicy, ...options.retry },
    logger: options.logger ?? silentLogger,
    sleep: options.sleep ?? ((ms) => delay(ms)),
    userAgent: options.userAgent ?? 'faultline',
  });
  return {
    auth: authApi(request),
    // Each resource is made when first used: a halt makes only `attacks`.
    as: (ctx) =>
      lazily<ScopedPlatform>({
        attacks: () => attacksApi(request, ctx),
        clients: () => clientsApi(request, ctx),
        kubernetes: () => kubernetesApi(request, ctx),
        metadata: () => metadataApi(request, ctx),
        tracker: () => trackerApi(request, ctx),
        monitoring: () => monitoringApi(request, ctx),
      }),
    close: async () => {
      await Promise.all([ownedAgent, haltAgent].map((agent) => (agent && !agent.closed ? agent.close() : undefined)));
    },
  };
}

/** Hosts that may be reached over plain HTTP: the simulator and local development only. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Where a secret may be sent: https:, or plain http: to a loopback host only. */
export function isSecureUrl(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

/** Parses the base URL, refusing one that would carry credentials in clear text. */
function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError('The platform URL is not a valid URL');
  }
  if (url.username || url.password) throw new TypeError('The platform URL must not contain credentials');
  if (!isSecureUrl(url)) throw new InsecureUrlError();
  return url;
}

/** An object whose members are made when first read, then kept. */
function lazily<T extends object>(makers: { [K in keyof T]: () => T[K] }): T {
  const made = {} as T;
  for (const key of Object.keys(makers) as (keyof T)[])
    Object.defineProperty(made, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = makers[key]();
        Object.defineProperty(made, key, { value, enumerable: true });
        return value;
      },
    });
  return made;
}

export { take } from './attacks.ts';
export type { CreateAttackInput, CreateAttackRequest, HaltRequest, InfraCommandType } from './attacks.ts';
export type { LoginInput } from './auth.ts';
export { builtInCatalogue } from './catalogue.ts';
export { resolveTarget } from './clients.ts';
export type { CreateKubernetesAttackInput } from './kubernetes.ts';
export type { CreateTrackerIssueRequest } from './tracker.ts';
export type { TargetResolution } from './clients.ts';
export {
  BadRequestError,
  ForbiddenError,
  InsecureUrlError,
  InvalidResponseError,
  NoIntegrationError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UnreachableError,
} from './errors.ts';
export { alertHealth, monitorHealth } from './monitoring.ts';
export { isPathId } from './request.ts';
export type { CallContext, Logger } from './request.ts';
export * from './schemas.ts';
