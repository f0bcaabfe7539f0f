import type { PlatformClient } from '../client/index.ts';
import type { Config } from '../config.ts';
import { explained } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import type { Actor, SessionStore } from '../store/sessions.ts';
import { platformFor, requireLogin } from './access.ts';
import type { CardStore } from './cards.ts';
import type { Recorder } from './events.ts';
import { haltAttack } from './halt.ts';
import { haltAllAttacks, haltEverything } from './massHalts.ts';
import { addNote } from './notes.ts';
import { answerPresence, type PresenceBoard } from './presence.ts';

/** What halting, noting and watching an attack use. */
export interface AttackParts {
  platform: PlatformClient;
  sessions: SessionStore;
  cards: CardStore;
  store: KeyValueStore;
  events: Recorder;
  logger: Logger;
  clock: { now(): number };
  /** Where a live attack's attendant is asked "Still watching?". */
  presence: PresenceBoard;
  /** People's names for text read outside Slack (a halt's reason, a note on the platform). */
  directory: { name(userId: string): Promise<string> };
  config: Pick<Config, 'presenceMinutes'>;
}

/** Attacks: the halts a person asks for, their notes, and their answers to "Still watching?". */
export class AttackService {
  readonly #parts: AttackParts;

  constructor(parts: AttackParts) {
    this.#parts = parts;
  }

  /** A person's halt of one attack, with their own session. */
  halt(actor: Actor, ref: Parameters<typeof haltAttack>[2], reason?: string) {
    return haltAttack(this.#parts, actor, ref, reason);
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

  async #haltedBy(actor: Actor): Promise<string> {
    return `Halted from Slack by ${await this.#parts.directory.name(actor.userId)}`;
  }

  /** Adds the note; answers the attack's whole id (a short one may have been typed). */
  note(actor: Actor, id: string, text: string, teamId?: string): Promise<string> {
    return addNote(this.#parts, actor, id, text, teamId);
  }

  /** "Still here": what the answer did, the attack's card as it is now, and when its attendant is asked again. */
  async stillHere(actor: Actor, guid: string) {
    const { cards, config } = this.#parts;
    const answer = await answerPresence(this.#parts, guid, actor);
    const card = answer === 'noted' ? await cards.get(guid) : undefined;
    return { answer, card, minutes: config.presenceMinutes };
  }
}
