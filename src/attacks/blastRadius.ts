/**
 * The blast radius: which of the team's active clients a target hits, resolved as the platform
 * would (GET /clients, src/client/clients.ts). The preview records it, an approval request carries
 * it, and every start resolves the target again and refuses a set that grew since (the drift
 * guard). Targets on services and Kubernetes objects are resolved by the platform only when the
 * attack is created, so nothing is recorded or compared for them.
 */
import { resolveTarget, type ScopedPlatform } from '../client/index.ts';
import type { TeamClient } from '../client/schemas.ts';
import { explained, UserInputError } from '../errors.ts';
import { closestWord } from '../suggest.ts';
import { type AttackTarget, targetPayload } from './request.ts';

type ClientTarget = Exclude<AttackTarget, { kind: 'service' | 'kubernetes' }>;

/** The clients a host or container target matches, as recorded at a preview or an approval. */
export interface TargetSet {
  kind: 'Host' | 'Container';
  /** Every match, sorted by name. */
  matches: string[];
  /** How many an attack hits: all the matches, or a random count's share of them. */
  hits: number;
  /** How many active clients of that kind the team has (the "of 14 hosts"). */
  outOf: number;
  /** A random target's count, when it has one: then the count is checked, not the names. */
  count?: number | undefined;
}

/** A host or container a target names that no active client of the team is, with a near one. */
export interface MissingClient {
  name: string;
  near?: string | undefined;
}

/**
 * What the preview shows: the set, with the names given that match no active client (the
 * platform skips them), or that the platform resolves the target only at the start.
 */
export type BlastRadius = (TargetSet & { missing?: MissingClient[] }) | { kind: 'service' } | { kind: 'kubernetes' };

/** Where a recorded set comes from, for the words of a refusal. */
export type RecordedAt = 'preview' | 'approval';

/** A target that matches no active client: refused before anything is started. */
export class NoTargetsError extends UserInputError {
  override name = 'NoTargetsError';
  readonly target: AttackTarget;
  readonly teamName: string;
  readonly set: TargetSet;
  /** Near tags, labels, hosts or containers the team has, as a person would type them. */
  readonly suggestions: string[];
  constructor(target: AttackTarget, teamName: string, set: TargetSet, suggestions: string[]) {
    super('The target matches no active client of the team.');
    this.target = target;
    this.teamName = teamName;
    this.set = set;
    this.suggestions = suggestions;
  }
}

/** A start whose target now hits more, or other, clients than were previewed or approved. */
export class TargetsDriftedError extends UserInputError {
  override name = 'TargetsDriftedError';
  readonly since: RecordedAt;
  readonly was: TargetSet;
  readonly now: TargetSet;
  /** Matches that were not there, and matches that are gone (empty for a random count). */
  readonly added: string[];
  readonly removed: string[];
  constructor(since: RecordedAt, was: TargetSet, now: TargetSet, added: string[], removed: string[]) {
    super('The target changed since it was checked.');
    this.since = since;
    this.was = was;
    this.now = now;
    this.added = added;
    this.removed = removed;
  }
}

const countOf = (target: ClientTarget) =>
  (target.kind === 'tags' || target.kind === 'labels') && target.count !== undefined ? target.count : undefined;

async function readSet(api: ScopedPlatform, target: ClientTarget, teamName: string) {
  const clients = await explained({ team: teamName, doing: "read the team's clients" }, () => api.clients.listActive());
  const resolved = resolveTarget(clients, targetPayload(target));
  const count = countOf(target);
  const set: TargetSet = {
    kind: resolved.kind,
    matches: resolved.matches.toSorted(),
    hits: resolved.hits,
    outOf: resolved.outOf,
    ...(count !== undefined ? { count } : {}),
  };
  return { set, clients };
}

/** The words a person could have meant, from what the team's active clients carry. */
function suggestionsFor(target: ClientTarget, clients: readonly TeamClient[]): string[] {
  const containers = clients.flatMap((client) => client.containers);
  const pairsOf = (maps: Record<string, string>[]) => [
    ...new Set(maps.flatMap((map) => Object.entries(map).map(([k, v]) => `${k}=${v}`))),
  ];
  const near = (wanted: string[], candidates: string[]) =>
    wanted.flatMap((word) => (candidates.includes(word) ? [] : (closestWord(word, candidates) ?? [])));
  switch (target.kind) {
    case 'all':
      return [];
    case 'hosts':
      return near(
        target.ids,
        clients.map((client) => client.identifier),
      );
    case 'containers':
      return near(
        target.ids,
        containers.flatMap((container) => container.id ?? []),
      );
    case 'tags':
      return near(pairsOf([target.tags]), pairsOf(clients.map((client) => client.tags)));
    case 'labels':
      return near(pairsOf([target.labels]), pairsOf(containers.map((container) => container.labels)));
  }
}

/**
 * The preview's blast radius. A host or container target that matches no active client is
 * refused here (NoTargetsError), with the near words the team's clients carry.
 */
export async function blastRadius(api: ScopedPlatform, target: AttackTarget, teamName: string): Promise<BlastRadius> {
  if (target.kind === 'service' || target.kind === 'kubernetes') return { kind: target.kind };
  const { set, clients } = await readSet(api, target, teamName);
  if (set.matches.length === 0) throw new NoTargetsError(target, teamName, set, suggestionsFor(target, clients));
  if (target.kind !== 'hosts' && target.kind !== 'containers') return set;
  const matched = new Set(set.matches);
  const missing = target.ids
    .filter((name) => !matched.has(name))
    .map((name) => ({ name, near: suggestionsFor({ ...target, ids: [name] }, clients)[0] }));
  return missing.length ? { ...set, missing } : set;
}

/**
 * The drift guard, at every start: the target is resolved again, and a set that matches nothing,
 * or grew since the preview or the approval, is refused with the difference. A set that only
 * shrank is still covered. A random count is checked by how many it hits, not by which.
 * Returns the set as it is now, for an approval request to carry; nothing for a service or
 * Kubernetes target.
 */
export async function confirmTargets(
  api: ScopedPlatform,
  target: AttackTarget,
  teamName: string,
  recorded: { set: TargetSet; at: RecordedAt } | undefined,
): Promise<TargetSet | undefined> {
  const resolved = await blastRadius(api, target, teamName);
  if (!('matches' in resolved)) return undefined;
  const { missing: _, ...now } = resolved;
  if (!recorded) return now;
  const was = recorded.set;
  const [before, after] = [new Set(was.matches), new Set(now.matches)];
  const added = now.matches.filter((name) => !before.has(name));
  const removed = was.matches.filter((name) => !after.has(name));
  const grew = now.count !== undefined ? now.hits > was.hits : added.length > 0 || now.kind !== was.kind;
  if (grew)
    throw new TargetsDriftedError(
      recorded.at,
      was,
      now,
      now.count !== undefined ? [] : added,
      now.count !== undefined ? [] : removed,
    );
  return now;
}

/** The set a way into the start recorded: the preview's or the approved request's. */
export function recordedTargets(way: {
  kind: string;
  targets?: TargetSet | undefined;
}): { set: TargetSet; at: RecordedAt } | undefined {
  return way.targets && { set: way.targets, at: way.kind === 'approval' ? 'approval' : 'preview' };
}
