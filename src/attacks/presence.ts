import { ForbiddenError, NotFoundError, UnauthorizedError } from '../client/errors.ts';
import type { AttackParts } from './service.ts';
import type { Breathe } from '../jobs/scheduler.ts';
import { startedUnder } from '../gamedays/gamedayReads.ts';
import { keys } from '../store/keys.ts';
import { type Person, samePerson } from '../store/sessions.ts';
import type { CardRecord, MessageRef } from './cards.ts';
import type { Who } from './events.ts';
import { halt } from './halt.ts';
import { canHalt } from './lifecycle.ts';

/** How long an attendant has to answer "Still watching?" before the attack is halted. */
export const presenceAnswerMs = 5 * 60_000;

/** The reason a halt gives when nobody answered. */
export const nobodyWatching = 'nobody was watching';

/** The last "Still watching?" of one live attack, kept in the store so a restart carries on. */
export interface PresenceAsk {
  guid: string;
  askedAt: string;
  /** Who was asked: the starter, or the facilitator of the game day the attack belongs to. */
  askedOf: Who;
  /** The direct message that asked, to close it once answered or moot. */
  message: MessageRef | undefined;
  answeredAt?: string | undefined;
  /** Nobody answered and no session could halt it: the card's channel has been asked to. */
  unhaltedTold?: boolean | undefined;
}

/** Why a question is closed: answered, the attack halted because nobody answered, or it stopped running anyway. */
export type PresenceClosed = 'here' | 'halted' | 'ended';

/** Where an attendant is asked, and the question closed; the words and the Slack calls are src/slack's. */
export interface PresenceBoard {
  /** Asks the person directly whether they still watch the attack, with Still here and Halt. */
  ask(person: Person, card: CardRecord, minutes: number): Promise<MessageRef>;
  /** Redraws the question without its buttons, saying how it was closed. */
  close(message: MessageRef, card: CardRecord, closed: PresenceClosed, minutes: number): void;
  /** Asks the card's thread to halt an attack nobody watches and no stored session can halt. */
  cannotHalt(card: CardRecord, askedOf: Person): Promise<void>;
}

/** Who answers for an attack: the facilitator of the game day it belongs to, else its starter. */
async function attendantOf(
  deps: AttackParts,
  card: CardRecord,
  facilitators: Map<string, string | undefined>,
): Promise<Who> {
  if (!facilitators.has(card.channel)) {
    const day = await deps.gameDays.running(card.channel);
    facilitators.set(card.channel, day && startedUnder(day, card) ? day.facilitator : undefined);
  }
  const facilitator = facilitators.get(card.channel);
  return facilitator && facilitator !== card.startedBy.userId
    ? { workspaceId: card.startedBy.workspaceId, userId: facilitator, userName: facilitator }
    : card.startedBy;
}

/**
 * One pass of presence checks (off with PRESENCE_MINUTES=0): an attack started from Slack that has
 * run PRESENCE_MINUTES since it started, or since its attendant last answered, asks its attendant;
 * a question left unanswered for five minutes halts the attack with the attendant's session (or
 * else its starter's) and the reason "nobody was watching". A question whose attack no longer
 * runs is closed. Returns how many attacks it asked about or halted. Never throws.
 */
export async function checkPresence(deps: AttackParts, breathe?: Breathe): Promise<number> {
  const minutes = deps.config.presenceMinutes;
  if (!minutes) return 0;
  let acted = 0;
  try {
    const asks = new Map<string, PresenceAsk>();
    for await (const [, ask] of deps.store.entries<PresenceAsk>(keys.presence.prefix)) asks.set(ask.guid, ask);
    // Only an attack that has run PRESENCE_MINUTES, or has a question out, needs its whole card read.
    const dueBefore = deps.clock.now() - minutes * 60_000;
    const due = [...(await deps.cards.liveCardsByTeam(breathe)).values()]
      .flat()
      .filter((card) => canHalt(card) && !card.origin && !(card.startTime && Date.parse(card.startTime) > dueBefore))
      .map((card) => card.guid);
    const cards = await deps.cards.getMany([...new Set([...due, ...asks.keys()])], breathe);
    const facilitators = new Map<string, string | undefined>();
    for (const card of cards) {
      if (!card) continue;
      try {
        if (await checkOne(deps, card, asks.get(card.guid), minutes, facilitators)) acted++;
      } catch (error) {
        deps.logger.warn({ err: error, attack: card.guid }, 'could not check that someone watches an attack');
      }
    }
    // Questions about attacks with no card left are dropped with them.
    for (const guid of asks.keys())
      if (!cards.some((card) => card?.guid === guid)) await deps.store.delete(keys.presence.key(guid));
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not check that someone watches the live attacks');
  }
  return acted;
}

async function checkOne(
  deps: AttackParts,
  card: CardRecord,
  ask: PresenceAsk | undefined,
  minutes: number,
  facilitators: Map<string, string | undefined>,
): Promise<boolean> {
  const key = keys.presence.key(card.guid);
  const now = deps.clock.now();
  // Halting or over (or started elsewhere, and only seen by a watch): nobody needs to be asked.
  if (!canHalt(card) || card.origin) {
    if (ask) {
      if (ask.message && !ask.answeredAt) deps.presence.close(ask.message, card, 'ended', minutes);
      await deps.store.delete(key);
    }
    return false;
  }
  if (ask && !ask.answeredAt) {
    if (now - Date.parse(ask.askedAt) < presenceAnswerMs) return false;
    return haltUnattended(deps, card, ask, minutes);
  }
  const since = Date.parse(ask?.answeredAt ?? ask?.askedAt ?? card.startTime ?? card.createdAt);
  if (now - since < minutes * 60_000) return false;
  const attendant = await attendantOf(deps, card, facilitators);
  const askedAt = new Date(now).toISOString();
  // Kept before the question goes out: an answer that comes back at once finds it.
  const asked: PresenceAsk = { guid: card.guid, askedAt, askedOf: attendant, message: undefined };
  await deps.store.set(key, asked, keys.presence.ttlMs);
  const message = await deps.presence.ask(attendant, card, minutes);
  const latest = await deps.store.get<PresenceAsk>(key);
  if (latest?.askedAt === askedAt) await deps.store.set(key, { ...latest, message }, keys.presence.ttlMs);
  deps.logger.info(
    { attack: card.guid, slackWorkspace: attendant.workspaceId, slackUser: attendant.userId },
    'asked whether someone still watches an attack',
  );
  return true;
}

/** Halts an attack whose attendant did not answer, with their session or else its starter's. */
async function haltUnattended(
  deps: AttackParts,
  card: CardRecord,
  ask: PresenceAsk,
  minutes: number,
): Promise<boolean> {
  for (const person of [ask.askedOf, card.startedBy]) {
    const login = await deps.sessions.get(person);
    const team = login?.session.teams.find((t) => t.identifier === card.teamId);
    if (!login || !team) continue;
    try {
      await halt(
        deps,
        deps.platform.as({ header: login.session.header, teamId: team.identifier, background: true }),
        { guid: card.guid, kind: card.kind, teamId: card.teamId },
        { by: ask.askedOf, platformUser: login.session.identifier, cause: 'presence', reason: nobodyWatching },
      );
    } catch (error) {
      if (error instanceof UnauthorizedError || error instanceof ForbiddenError) continue;
      if (!(error instanceof NotFoundError)) throw error;
    }
    if (ask.message) deps.presence.close(ask.message, card, 'halted', minutes);
    await deps.store.delete(keys.presence.key(card.guid));
    return true;
  }
  if (ask.unhaltedTold) return false;
  deps.logger.warn(
    { attack: card.guid, slackUser: ask.askedOf.userId },
    'nobody answered for an attack, and no session can halt it; asking its channel, and trying again at each pass',
  );
  await deps.presence.cannotHalt(card, ask.askedOf);
  await deps.store.set(keys.presence.key(card.guid), { ...ask, unhaltedTold: true }, keys.presence.ttlMs);
  return true;
}

/** What an answer to "Still watching?" did. */
export type PresenceAnswer = 'noted' | 'not running' | 'not asked';

/**
 * "Still here": the attack runs on, and its attendant is asked again PRESENCE_MINUTES after this
 * answer. The answer holds for every question still waiting on the same person (a facilitator
 * asked about several attacks of a game day answers once), and closes those questions too.
 */
export async function answerPresence(
  deps: Pick<AttackParts, 'cards' | 'store' | 'clock' | 'presence' | 'config'>,
  guid: string,
  by: Person,
): Promise<PresenceAnswer> {
  const card = await deps.cards.get(guid);
  if (card && !canHalt(card)) return 'not running';
  const ask = await deps.store.get<PresenceAsk>(keys.presence.key(guid));
  if (!ask) return card ? 'not asked' : 'not running';
  const answeredAt = new Date(deps.clock.now()).toISOString();
  const waiting: PresenceAsk[] = [];
  for await (const [, other] of deps.store.entries<PresenceAsk>(keys.presence.prefix))
    if (!other.answeredAt && samePerson(other.askedOf, by)) waiting.push(other);
  if (!ask.answeredAt && !waiting.some((other) => other.guid === guid)) waiting.push(ask);
  for (const other of waiting) {
    await deps.store.set(keys.presence.key(other.guid), { ...other, answeredAt }, keys.presence.ttlMs);
    if (other.guid === guid || !other.message) continue;
    const shown = await deps.cards.get(other.guid);
    if (shown) deps.presence.close(other.message, shown, 'here', deps.config.presenceMinutes);
  }
  return 'noted';
}
