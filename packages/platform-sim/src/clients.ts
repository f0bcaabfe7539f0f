/**
 * The clients (hosts and containers) a team's agents report (platform-contract.md, Clients), and
 * the changes `/_control` and tests make to them: a host joins or leaves, its agent stops
 * reporting, a target stops late when halted.
 */
import { isoTime } from './clock.ts';
import { SimHttpError } from './route.ts';
import type { Container, Host, SimState } from './state.ts';

/** An id as a host name or container id may be: letters, digits, `.`, `_` and `-`. */
const clientIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Whether attacks may run on the host: its agent still reports. */
export function isActiveHost(host: Host): boolean {
  return host.active !== false;
}

/** GET /clients: one record per host of the team, its containers inside, active or not. */
export function clientResponses(state: SimState, teamId: string, now: number) {
  const containers = state.containersOf(teamId);
  return state.hostsOf(teamId).map((host) => ({
    identifier: host.id,
    active: isActiveHost(host),
    tags: host.tags,
    containers: containers
      .filter((container) => container.hostId === host.id)
      .map((container) => ({ id: container.id, name: container.id, labels: container.labels })),
    last_seen: isoTime(isActiveHost(host) ? now : (host.lastSeenAt ?? now)),
  }));
}

function newId(state: SimState, id: string): string {
  if (!clientIdPattern.test(id))
    throw new SimHttpError(400, `Bad request: "${id}" is not a client id (letters, digits, ".", "_" and "-")`);
  if (findClient(state, id)) throw new SimHttpError(409, `A host or container ${id} exists already`);
  return id;
}

export function findClient(state: SimState, id: string): Host | Container | undefined {
  return state.hosts.find((host) => host.id === id) ?? state.containers.find((container) => container.id === id);
}

function hostOf(state: SimState, id: string): Host {
  const host = state.hosts.find((candidate) => candidate.id === id);
  if (!host) throw new SimHttpError(404, `No host ${id}`);
  return host;
}

/** A new host reports to the team, active. */
export function addHost(state: SimState, teamId: string, id: string, tags: Record<string, string> = {}): Host {
  if (!state.teams.has(teamId)) throw new SimHttpError(404, `No team ${teamId}`);
  const host: Host = { id: newId(state, id), teamId, tags: { ...tags } };
  state.hosts.push(host);
  return host;
}

/** A new container runs on the host, in the host's team. */
export function addContainer(
  state: SimState,
  hostId: string,
  id: string,
  labels: Record<string, string> = {},
): Container {
  const host = hostOf(state, hostId);
  const container: Container = { id: newId(state, id), teamId: host.teamId, hostId, labels: { ...labels } };
  state.containers.push(container);
  return container;
}

/** The host (with its containers) or container is gone; attacks already made keep naming it. */
export function removeClient(state: SimState, id: string): void {
  const client = findClient(state, id);
  if (!client) throw new SimHttpError(404, `No host or container ${id}`);
  const gone = (candidate: Host | Container) =>
    candidate.id === id || ('hostId' in candidate && candidate.hostId === id);
  for (const list of [state.hosts, state.containers] as Array<Array<Host | Container>>) {
    const kept = list.filter((candidate) => !gone(candidate));
    list.splice(0, list.length, ...kept);
  }
  for (const agents of [state.deafTargets, state.stopDelays]) agents.delete(id);
}

/** The host's agent stops reporting (seen last at `now`), or reports again. */
export function setHostActive(state: SimState, id: string, active: boolean, now: number): Host {
  const host = hostOf(state, id);
  if (isActiveHost(host) && !active) host.lastSeenAt = now;
  host.active = active;
  return host;
}

/** The longest stop delay a target may be given: an hour, as long as a test or demo needs. */
const maxStopDelayMs = 60 * 60 * 1000;

/** The target stops `ms` later than others once a halt reaches it (0: at once), from the next halt on. */
export function setStopDelay(state: SimState, id: string, ms: number): void {
  if (!Number.isFinite(ms) || ms < 0 || ms > maxStopDelayMs)
    throw new SimHttpError(400, 'Bad request: a stop delay is between 0 and 3600 seconds');
  if (ms === 0) state.stopDelays.delete(id);
  else state.stopDelays.set(id, ms);
}
