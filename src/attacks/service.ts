import type { Config } from '../config.ts';
import { explained } from '../errors.ts';
import type { AfterParts } from '../parts.ts';
import { NotFoundError } from '../client/errors.ts';
import type { Attack, TeamEntry } from '../client/index.ts';
import { keys } from '../store/keys.ts';
import { withLock } from '../store/leases.ts';
import type { Actor, Login } from '../store/sessions.ts';
import { locateAttack, platformFor, requireLogin, teamName } from './access.ts';
import type { CatalogueCache } from './catalogue.ts';
import type { CardStore } from './cards.ts';
import { isFinished } from './lifecycle.ts';
import { removeWatch, setWatch, type Watches } from './watches.ts';
import type { StartNotices } from './start.ts';
import type { WorkflowService } from '../workflow/service.ts';
import { type Poller, redrawUnsent } from './poller.ts';
import type { Breathe } from '../jobs/scheduler.ts';
import { type HaltReceipt, verifyHalts } from './haltChecks.ts';
import { type CloseApproved, recoverStarts } from './recoverStarts.ts';
import { haltAttack } from './halt.ts';
import { haltAllAttacks, haltEverything } from './massHalts.ts';
import { answerPresence, checkPresence, type PresenceBoard } from './presence.ts';
import { deleteSaved, type SavedAttack, type SavedAttacks, saveAttack, savedForRun } from './saved.ts';
import type { Who } from './events.ts';
import { attackChannel, type CardChannels, otherAttackChannels } from './channels.ts';
import { cancelPreviewed, previewAttack, startPreviewed } from './previews.ts';
import type { StartAsk, StartedAttack, StartParts } from './start.ts';
import { homeAttacks, listAttacks, readAttack } from './reads.ts';
import { type ApprovedWay, rehearseStart, type StartOutcome, type StartWay, startPolicy } from './startPolicy.ts';

/** What starting, halting, noting and watching an attack use. */
export interface AttackParts extends StartParts {
  /** Where a live attack's attendant is asked "Still watching?". */
  presence: PresenceBoard;
  /** People's names for text read outside Slack (a halt's reason, a note on the platform). */
  directory: { name(userId: string): Promise<string> };
  catalogues: CatalogueCache;
  /** Each team's saved attacks (`save`, `saved`, `run`). */
  saved: SavedAttacks;
  watches: Watches;
  /** What a restarted bot tells the starter of a start it finished. */
  startNotices: StartNotices;
  /** Where a Workflow Builder step that ran a start hears how the start ended. */
  workflow: Pick<WorkflowService, 'startEnded'>;
  /** The card refresher (refresh-cards). */
  poller: Poller;
  /** Whether a channel can take an attack's card (asks Slack). */
  channels: CardChannels;
  config: Pick<
    Config,
    | 'presenceMinutes'
    | 'approvalRules'
    | 'maxAttackSeconds'
    | 'monitoring'
    | 'attackChannels'
    | 'pollSeconds'
    | 'haltSloSeconds'
  >;
}

/** A start as a way in asks for it: the channel it was asked from, not yet checked (it may be none). */
export type AskFrom = Omit<StartAsk, 'channel'> & { channel: string | undefined };

/** An attack halted from someone's App Home, followed until it has ended. */
interface HomeHalt {
  actor: Actor;
  guid: string;
  teamId: string;
}

/** Attacks: their starts and previews, the halts a person asks for, their notes, and their answers to "Still watching?". */
export class AttackService {
  readonly #parts: AttackParts;

  constructor(parts: AttackParts) {
    this.#parts = parts;
    this.saved = parts.saved;
    this.watches = parts.watches;
    this.cards = parts.cards;
  }

  /** Each team's saved attacks. */
  readonly saved: SavedAttacks;
  /** Channels bound to teams (`watch`). */
  readonly watches: Watches;
  /** The attacks' cards, as last saved. */
  readonly cards: CardStore;

  /** What an attack may be: its longest length, the monitoring guards may read, the channels it may start in. */
  get settings(): AttackParts['config'] {
    return this.#parts.config;
  }

  /** The team's attacks as the person's own session reads them (reads.ts): a page of a list, one attack, App Home's. */
  listPage = (...a: AfterParts<typeof listAttacks>) => listAttacks(this.#parts, ...a);
  attack = (login: Login, team: TeamEntry, guid: string) => readAttack(this.#as(login, team), guid);
  executions = (login: Login, team: TeamEntry, guid: string) => this.#as(login, team).attacks.executions(guid);
  ticketCount = (login: Login, team: TeamEntry, guid: string) => this.#as(login, team).tracker.count([guid]);
  homeAttacks = (login: Login, team: TeamEntry) => homeAttacks(this.#parts, this.#as(login, team));
  #as = (login: Login, team: TeamEntry) => platformFor(this.#parts, login, team);

  /** The team's attack types, as the person's session reads them (waiting at most `waitMs`). */
  catalogue(login: Login, team: TeamEntry, waitMs?: number) {
    return this.#parts.catalogues.get(team.identifier, this.#as(login, team), waitMs);
  }

  /** The attack an id names (a short one may have been typed), in the person's teams. */
  locate = (...a: AfterParts<typeof locateAttack>) => locateAttack(this.#parts, ...a);
  /** Saves a checked attack for the team under a name (saved.ts). */
  save = (...a: AfterParts<typeof saveAttack>) => saveAttack(this.#parts, ...a);
  /** The team's saved attack as a run may take it; a person's delete of one (saved.ts). */
  savedForRun = (...a: AfterParts<typeof savedForRun>) => savedForRun(this.#parts, ...a);
  deleteSaved = (...a: AfterParts<typeof deleteSaved>) => deleteSaved(this.#parts, ...a);
  /** The person saw that version of a saved attack (its preview, or a run of it): theirs to start at once, until it changes. */
  sawSaved = (saved: SavedAttack, by: Pick<Who, 'workspaceId' | 'userId'>) =>
    this.saved.markSeen(saved.teamId, saved.name, by, saved.version);

  /** A channel's watch of a team, set or renewed and announced; its end (watches.ts). */
  watch = (...a: AfterParts<typeof setWatch>) => setWatch(this.#parts, ...a);
  unwatch = (...a: AfterParts<typeof removeWatch>) => removeWatch(this.#parts, ...a);

  /** Keeps a list page with Halt buttons, so a halt from it can redraw it (Slack does not send an ephemeral message back). */
  keepListPage(page: { listId: string }): Promise<void> {
    return this.#parts.store.set(keys.listPage.key(page.listId), page, keys.listPage.ttlMs);
  }

  /** A kept list page, changed by `change` and kept again; undefined once it is gone. */
  async changeListPage<P extends { listId: string }>(listId: string, change: (page: P) => P) {
    const page = await this.#parts.store.get<P>(keys.listPage.key(listId));
    if (!page) return undefined;
    const next = change(page);
    await this.keepListPage(next);
    return next;
  }

  /** Where attacks may start (channels.ts): every preview and start checks it; a way in may ask first. */
  checkChannel = (channel: string | undefined) => attackChannel(this.#parts, channel);
  /** The channels ATTACK_CHANNELS names instead of this one; undefined when attacks may start here. */
  otherChannels = (channel: string | undefined) => otherAttackChannels(this.#parts.config.attackChannels, channel);

  async #checked(ask: AskFrom): Promise<StartAsk> {
    return { ...ask, channel: await this.checkChannel(ask.channel) };
  }

  /** Every start, from any way in: where it may start, then the one start policy (startPolicy.ts). */
  start(ask: AskFrom, way: ApprovedWay): Promise<StartedAttack>;
  start(ask: AskFrom, way: StartWay): Promise<StartOutcome>;
  async start(ask: AskFrom, way: StartWay): Promise<StartOutcome | StartedAttack> {
    return startPolicy(this.#parts, await this.#checked(ask), way);
  }

  /** A rehearsal's start: the start policy's checks, and nothing created (startPolicy.ts). */
  rehearse = (ask: StartAsk) => rehearseStart(this.#parts, ask);

  /**
   * What a start would meet now, where it would start, and the id its Start button carries
   * (previews.ts); its one Start (the channel checked again at the click) or Cancel.
   */
  async preview(ask: AskFrom) {
    const checked = await this.#checked(ask);
    return { channel: checked.channel, ...(await previewAttack(this.#parts, checked)) };
  }
  startPreviewed = (id: string, actor: Actor) => startPreviewed(this.#parts, id, actor, this.checkChannel);
  cancelPreviewed = (id: string) => cancelPreviewed(this.#parts, id);
  /** A person's halt of one attack, with their own session. */
  halt = (...a: AfterParts<typeof haltAttack>) => haltAttack(this.#parts, ...a);

  /** Follows an attack the person halted from App Home, so their Home is drawn again when it ends. */
  async followHomeHalt(actor: Actor, login: Login, guid: string): Promise<void> {
    if (!login.team) return;
    const follow: HomeHalt = { actor, guid, teamId: login.team.identifier };
    await this.#parts.store.set(keys.homeHalt.key(actor.userId, guid), follow, keys.homeHalt.ttlMs);
  }

  /**
   * The attacks halted from App Home that have ended since the last pass, each once: whoever halted
   * it, and the attack as it ended. One no longer readable with their session is let go.
   */
  async *endedHomeHalts(): AsyncGenerator<{ actor: Actor; guid: string; state: Attack }> {
    const parts = this.#parts;
    for await (const [, halt] of parts.store.entries<HomeHalt>(keys.homeHalt.prefix)) {
      const key = keys.homeHalt.key(halt.actor.userId, halt.guid);
      const login = await parts.sessions.get(halt.actor);
      const team = login?.session.teams.find((t) => t.identifier === halt.teamId);
      if (!login || !team) {
        await parts.store.delete(key);
        continue;
      }
      const state = await platformFor(parts, login, team)
        .attacks.get(halt.guid)
        .catch(async (error: unknown) => {
          // Not an attack the platform reads this way (a Kubernetes one): Home shows it as it is.
          if (error instanceof NotFoundError) await parts.store.delete(key);
          else parts.logger.warn({ err: error, attack: halt.guid }, 'could not follow a halt from App Home');
          return undefined;
        });
      if (!state || !isFinished(state)) continue;
      await parts.store.delete(key);
      yield { actor: halt.actor, guid: halt.guid, state };
    }
  }

  /** The teams' last verified halts, with their receipts, newest first. */
  async lastHalts(teamIds: string[], count: number): Promise<HaltReceipt[]> {
    const receipts: HaltReceipt[] = [];
    for (const teamId of teamIds)
      for await (const [, receipt] of this.#parts.store.entries<HaltReceipt>(keys.haltReceipt.ofTeam(teamId)))
        receipts.push(receipt);
    return receipts.sort((a, b) => b.sentAt.localeCompare(a.sentAt)).slice(0, count);
  }

  /** Halt all: every attack and Kubernetes attack the person's session reaches, in their name unless a reason is given. */
  async haltAll(actor: Actor, channel: string | undefined, reason?: string) {
    const login = await requireLogin(this.#parts, actor);
    return haltAllAttacks(this.#parts, actor, login, reason ?? (await this.#haltedBy(actor)), channel);
  }

  /** Halt everything: every active impact the person's session reaches (the platform names nothing). */
  async haltEverything(actor: Actor, channel: string | undefined): Promise<void> {
    const login = await requireLogin(this.#parts, actor);
    const reason = await this.#haltedBy(actor);
    // A company-level call: no team is sent, the session decides what is reached.
    const halter = { by: actor, platformUser: login.session.identifier, cause: 'person' as const, reason };
    const api = platformFor(this.#parts, login, undefined);
    await explained({ doing: 'halt everything on the platform' }, () =>
      haltEverything(this.#parts, api, halter, channel),
    );
  }

  /** A person's name, for text read outside Slack; their user id when Slack does not say at once. */
  personName = (userId: string) => this.#parts.directory.name(userId);

  async #haltedBy(actor: Actor): Promise<string> {
    return `Halted from Slack by ${await this.#parts.directory.name(actor.userId)}`;
  }

  /**
   * Adds a note as an annotation (PUT replaces the map, so existing notes are sent back too), then
   * shows it on the card and in its thread; answers the attack's whole id (a short one may have been typed).
   */
  async note(actor: Actor, id: string, text: string, teamId?: string): Promise<string> {
    const parts = this.#parts;
    const login = await requireLogin(parts, actor);
    const { guid, team } = await locateAttack(parts, login, id, { teamId });
    const api = platformFor(parts, login, team);
    const context = { team: teamName(team), doing: 'add the note', subject: `attack ${guid}` };
    const key = `note-${new Date(parts.clock.now()).toISOString()}-${actor.userId}`;
    // The platform's PUT replaces every annotation: two notes at once must not each drop the other.
    const annotated = await this.#oneNoteAtATime(guid, () =>
      explained(context, async () => {
        const current = await api.attacks.get(guid);
        return api.attacks.annotate(guid, {
          ...current.annotations,
          [key]: `${text} (${await parts.directory.name(actor.userId)})`,
        });
      }),
    );
    await parts.events.record({
      kind: 'note',
      guid,
      teamId: team.identifier,
      by: actor,
      platformUser: login.session.identifier,
      text,
      state: annotated,
    });
    return guid;
  }

  /** Runs `work` while holding the attack's note lock (across replicas on Redis), waiting a little for it if taken. */
  async #oneNoteAtATime<T>(guid: string, work: () => Promise<T>): Promise<T> {
    const held = await withLock(this.#parts.store, keys.noteLock.key(guid), keys.noteLock.ttlMs, work, 5_000);
    if (held === 'busy') throw new Error('A note on this attack is still being saved; try again.');
    return held.done;
  }

  /** "Still here": what the answer did, the attack's card as it is now, and when its attendant is asked again. */
  async stillHere(actor: Actor, guid: string) {
    const { cards, config } = this.#parts;
    const answer = await answerPresence(this.#parts, guid, actor);
    const card = answer === 'noted' ? await cards.get(guid) : undefined;
    return { answer, card, minutes: config.presenceMinutes };
  }

  /** The jobs (src/jobs/backgroundJobs.ts): starts a stopped bot left, closing the request each was approved by. */
  recoverStarts(closeApproved: CloseApproved) {
    return recoverStarts({ ...this.#parts, closeApproved });
  }

  redrawUnsent = () => redrawUnsent(this.#parts);
  verifyHalts = () => verifyHalts(this.#parts);
  checkPresence = (breathe?: Breathe) => checkPresence(this.#parts, breathe);
  refreshCards = (breathe?: Breathe) => this.#parts.poller.pollOnce(breathe);
  stopRefreshing = () => this.#parts.poller.stop();
}
