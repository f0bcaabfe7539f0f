/**
 * The team's hosts and containers (GET /clients), and what a target of `POST /attacks/new` hits
 * among them, resolved as the platform does (platform-contract.md, Clients): `Exact` names hosts,
 * `Random` takes the hosts carrying every tag, and `containers` narrows to the containers on those
 * hosts. Only active clients count: one the platform says nothing about counts, so that a blast
 * radius is never understated.
 */
import { z } from 'zod';
import type { CreateAttackInput } from './attacks.ts';
import type { CallContext, Request } from './request.ts';
import { type TeamClient, teamClientSchema } from './schemas.ts';

export interface ClientsApi {
  /** Every client of the team (GET /clients): hosts with their tags and containers, active or not. */
  list(): Promise<TeamClient[]>;
  /** The clients an attack may target: those the platform does not say are inactive. */
  listActive(): Promise<TeamClient[]>;
}

const isActive = (client: TeamClient) => client.active !== false;

/** GET /clients answers one JSON array, not paged (platform-contract.md, Clients). */
export function clientsApi(request: Request, session: CallContext): ClientsApi {
  const list = () =>
    request({ session, teamScoped: true, method: 'GET', path: '/clients', schema: z.array(teamClientSchema) });
  return {
    list,
    listActive: async () => (await list()).filter(isActive),
  };
}

export interface TargetResolution {
  kind: 'Host' | 'Container';
  /** The host identifiers or container ids the target matches, in the platform's order. */
  matches: string[];
  /** How many of the matches an attack hits: all of them, or a `Random` target's count if fewer. */
  hits: number;
  /** How many active clients of that kind the team has (the "of 14 hosts"). */
  outOf: number;
  /** Host names an `Exact` target gives that no active client of the team has. */
  unknownHosts: string[];
}

function hasAll(actual: Record<string, string>, wanted: Record<string, string> | undefined): boolean {
  return Object.entries(wanted ?? {}).every(([key, value]) => actual[key] === value);
}

/** Resolves `target` (and the payload's top-level container `labels`) against the team's clients. */
export function resolveTarget(
  clients: readonly TeamClient[],
  target: CreateAttackInput['target'],
  labels?: Record<string, string>,
): TargetResolution {
  const active = clients.filter(isActive);
  const containerIds = target.containers?.ids;
  const containerLabels = target.containers?.labels ?? labels;
  const named = target.type === 'Exact' ? (target.hosts?.ids ?? (Array.isArray(target.exact) ? target.exact : [])) : [];
  // An Exact target that names containers but no host looks for them on every host.
  const hosts =
    target.type === 'Random'
      ? active.filter((host) => hasAll(host.tags, target.tags))
      : named.length === 0 && containerIds
        ? active
        : active.filter((host) => named.includes(host.identifier));
  const unknownHosts = named.filter((name) => !active.some((host) => host.identifier === name));
  const count = target.type === 'Random' && typeof target.exact === 'number' ? target.exact : Infinity;
  if (containerIds || containerLabels) {
    const matches = hosts.flatMap((host) =>
      host.containers
        .filter(
          (container) =>
            (!containerIds || containerIds.includes(container.id ?? '')) && hasAll(container.labels, containerLabels),
        )
        .flatMap((container) => container.id ?? container.name ?? []),
    );
    const outOf = active.reduce((sum, host) => sum + host.containers.length, 0);
    return { kind: 'Container', matches, hits: Math.min(count, matches.length), outOf, unknownHosts };
  }
  const matches = hosts.map((host) => host.identifier);
  return { kind: 'Host', matches, hits: Math.min(count, matches.length), outOf: active.length, unknownHosts };
}
