import { audit } from '../audit.ts';
import type { Attack, TeamEntry } from '../client/index.ts';
import type { Logger } from '../logger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { type Actor, type Login, type Person, samePerson } from '../store/sessions.ts';
import { teamName } from './access.ts';
import type { CardRecord } from './cards.ts';
import { isFinished } from './lifecycle.ts';
import { keys } from '../store/keys.ts';

/**
 * A channel bound to a team: every attack of the team, wherever it starts, gets a card there.
 * The platform is read for it with the session of the person who set it (or last renewed it).
 */
export interface Watch {
  teamId: string;
  teamName: string;
  channel: string;
  by: Person & { userName: string };
  /** ISO time the watch was first set: attacks created since then get cards. */
  since: string;
  /** ISO time `by` set or renewed it. */
  renewedAt: string;
  /** Set while the watch waits for someone to renew it (its reader's session ended). */
  pausedAt?: string | undefined;
}

/**
 * Attacks created up to this long before a watch was set still get cards: the platform's clock
 * and ours may differ by a little, and an attack started just before is one people want to see.
 */
export const watchGraceMs = 60_000;

/** The watches, one store key each, so every replica serves them and they survive restarts. */
export class Watches {
  readonly #store: KeyValueStore;

  constructor(store: KeyValueStore) {
    this.#store = store;
  }

  get(teamId: string, channel: string): Promise<Watch | undefined> {
    return this.#store.get<Watch>(keys.watch.key(teamId, channel));
  }

  async set(watch: Watch): Promise<void> {
    await this.#store.set(keys.watch.key(watch.teamId, watch.channel), watch, keys.watch.ttlMs);
  }

  /** Removes a watch; false when there was none. */
  remove(teamId: string, channel: string): Promise<boolean> {
    return this.#store.delete(keys.watch.key(teamId, channel));
  }

  /** Every watch, grouped by nothing: for the game-day report, status and App Home. */
  async all(): Promise<Watch[]> {
    const found: Watch[] = [];
    for await (const [, watch] of this.#store.entries<Watch>(keys.watch.prefix)) found.push(watch);
    return found;
  }

  /** Every watch by team, for the poller. */
  async byTeam(): Promise<Map<string, Watch[]>> {
    const teams = new Map<string, Watch[]>();
    for (const watch of await this.all()) teams.set(watch.teamId, [...(teams.get(watch.teamId) ?? []), watch]);
    return teams;
  }

  /** The watches of one channel. */
  async inChannel(channel: string): Promise<Watch[]> {
    return (await this.all()).filter((w) => w.channel === channel);
  }
}

type WatchParts = { watches: Watches; logger: Logger; clock: { now(): number } };

/**
 * Binds the channel to the team, read with the person's session: their own live watch there is
 * `already` as it is; a renewal keeps the start, so attacks that began while it was paused and
 * still run get their cards. `announce` says so in the channel first, and throws (nothing is set)
 * when it cannot post there.
 */
export async function setWatch(
  deps: WatchParts,
  actor: Actor,
  login: Login,
  team: TeamEntry,
  channel: string,
  announce: (watch: Watch, renewal: boolean) => Promise<void>,
): Promise<{ already: Watch } | { watch: Watch }> {
  const existing = await deps.watches.get(team.identifier, channel);
  const by = { workspaceId: actor.workspaceId, userId: actor.userId, userName: actor.userName };
  if (existing && !existing.pausedAt && samePerson(existing.by, by)) return { already: existing };
  const now = new Date(deps.clock.now()).toISOString();
  const since = existing?.since ?? now;
  const watch: Watch = { teamId: team.identifier, teamName: teamName(team), channel, by, since, renewedAt: now };
  await announce(watch, existing !== undefined);
  await deps.watches.set(watch);
  audit(deps.logger, existing ? 'watch_renewed' : 'watch_set', actor, {
    platformUser: login.session.identifier,
    team: team.identifier,
    channel,
  });
  return { watch };
}

/** Ends a channel's watch of a team, whoever set it. */
export async function removeWatch(deps: WatchParts, actor: Actor, login: Login, watch: Watch): Promise<void> {
  await deps.watches.remove(watch.teamId, watch.channel);
  audit(deps.logger, 'watch_removed', actor, {
    platformUser: login.session.identifier,
    team: watch.teamId,
    channel: watch.channel,
  });
}

/** Whether a watch should card this attack: it is still running and was created since the watch was set. */
export function watchCovers(
  watch: Watch,
  attack: Pick<Attack, 'created_at' | 'stage_lifecycle' | 'end_time'>,
): boolean {
  if (isFinished(attack)) return false;
  const created = Date.parse(attack.created_at ?? '');
  // An attack whose creation time cannot be read is shown rather than missed.
  return Number.isNaN(created) || created >= Date.parse(watch.since) - watchGraceMs;
}

/** The length in seconds an attack's `-l`/`--length` flag gives, if any. */
function lengthOf(args: readonly string[]): number | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const inline = /^--length=(\d+)$/.exec(arg);
    if (inline) return Number(inline[1]);
    if ((arg === '-l' || arg === '--length') && /^\d+$/.test(args[i + 1] ?? '')) return Number(args[i + 1]);
  }
  return undefined;
}

/**
 * The card a watch posts for an attack started outside Slack (or in Slack, where no card was
 * posted); its target in words is the watch board's, from the platform's record.
 */
export function watchedAttackCard(attack: Attack, watch: Watch): Omit<CardRecord, 'targetWords'> {
  return {
    guid: attack.guid,
    kind: 'attack',
    teamId: watch.teamId,
    teamName: watch.teamName,
    channel: watch.channel,
    ts: '',
    type: attack.infra_command?.type ?? 'attack',
    args: attack.args,
    // The watch's reader reads the card too; the card itself names who started it on the platform.
    startedBy: watch.by,
    startedByPlatform: attack.create_user,
    origin: { source: attack.create_source, user: attack.create_user },
    stage: attack.stage ?? 'Pending',
    lifecycle: attack.stage_lifecycle ?? 'Active',
    totalClients: attack.total_clients,
    createdAt: attack.created_at ?? new Date().toISOString(),
    startTime: attack.start_time,
    endTime: attack.end_time,
    lengthSeconds: lengthOf(attack.args),
    annotations: attack.annotations ?? {},
    haltedBy: [],
  };
}
