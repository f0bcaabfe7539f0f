// The tickets' service: what a tracker's issue type asks of a ticket (the form and its reading both
// follow it), a draft kept for the person who opened the form, and a ticket filed once from it.
import { randomUUID } from 'node:crypto';
import type { CreateTrackerIssueRequest } from '../client/tracker.ts';
import { ServerError, TimeoutError, UnreachableError } from '../client/errors.ts';
import type { IssueMeta, PlatformClient, TeamEntry, TrackerEntityType, TrackerIssue } from '../client/index.ts';
import type { Attack, IssueField } from '../client/schemas.ts';
import type { Logger } from '../logger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import { type Actor, type Login, type SessionStore, samePerson } from '../store/sessions.ts';
import { keys } from '../store/keys.ts';
import { explained, UserInputError } from '../errors.ts';
import type { CardRecord, CardStore } from '../attacks/cards.ts';
import type { Recorder } from '../attacks/events.ts';
import { locateAttack, platformFor, requireLogin, teamForAction, teamName } from '../attacks/access.ts';
import type { GameDayReads } from '../gamedays/gamedayReads.ts';
import { cardOutcome, gameDayPeople, type GameDayOutcomes, type GameDayRecord } from '../gamedays/gamedayRecord.ts';

/** Trackers cap a summary at 255 characters. */
export const summaryMaxLength = 255;
/** Fields that have their own input (or none, project and issue type coming from the first step). */
const fieldsWithOwnInput = new Set(['summary', 'description', 'project', 'issuetype', 'labels']);

/** The fields of the issue meta that need an input of their own: the required ones. */
export function ticketInputFields(meta: IssueMeta): IssueField[] {
  return meta.fields.filter((field) => field.required && !fieldsWithOwnInput.has(field.key));
}

export function labelsRequired(meta: IssueMeta): boolean {
  return meta.fields.some((field) => field.key === 'labels' && field.required);
}

/** Whether an array field offers a fixed set of choices (components, versions) or takes free words. */
export const hasChoices = (field: IssueField) => field.allowedValues.length > 0;

/** A ticket being written: what it is about and where its key goes once filed. */
export interface TicketDraft {
  id: string;
  person: { workspaceId: string; userId: string };
  teamId: string;
  entity: { id: string; type: TrackerEntityType };
  summary: string;
  description: string;
  /** The attack card whose thread gets the key, when there is one. */
  card?: { guid: string; channel: string } | undefined;
  /** The game day whose timeline gets the ticket. */
  gameDayChannel?: string | undefined;
  projectId?: string | undefined;
  issueTypeId?: string | undefined;
  meta?: IssueMeta | undefined;
}

export interface TicketParts {
  store: KeyValueStore;
  sessions: SessionStore;
  platform: PlatformClient;
  cards: CardStore;
  gameDays: Pick<GameDayReads, 'byCard'>;
  recorder: Recorder;
  logger: Logger;
  /** Where a Slack message links to, and people's names, for text read outside Slack. */
  links: { permalink(channel: string, ts: string): Promise<string | undefined> };
  directory: { names(userIds: Iterable<string>): Promise<Record<string, string>> };
  /** The project and issue type configured for every ticket, if any. */
  tracker: { projectId: string | undefined; issueTypeId: string | undefined };
}

/** What a ticket is about, as its prefill reads it. */
export type TicketSubject = { team: TeamEntry; permalink: string | undefined; names: Record<string, string> } & (
  | { guid: string; attack: Attack; card: CardRecord | undefined }
  | { gameDay: GameDayRecord & { id: string }; outcomes: GameDayOutcomes }
);

/** The form a draft shows next: the tracker's fields once project and issue type are known, else what is configured of them. */
export interface TicketForm {
  draft: TicketDraft;
  fields?: { meta: IssueMeta; labels: string[] } | undefined;
  projectId?: string | undefined;
  issueTypeId?: string | undefined;
}

export type Filing =
  | { kind: 'filed'; issue: { key: string; url?: string | undefined } }
  /** Another delivery of the same submission files it (or did). */
  | { kind: 'taken' }
  /** It may have been filed: the claim stays, so a second submission cannot file it twice. */
  | { kind: 'unknown'; error: unknown; team: TeamEntry }
  /** Refused: nothing was filed, so the person may correct the form and submit again. */
  | { kind: 'refused'; error: unknown; team: TeamEntry };

/** Whether a failed create certainly changed nothing: a refusal, as opposed to silence or a crash. */
function outcomeKnown(error: unknown): boolean {
  if (error instanceof TimeoutError || error instanceof ServerError) return false;
  if (error instanceof UnreachableError) return !error.outcomeUnknown;
  return true;
}

export class TicketService {
  readonly #parts: TicketParts;

  constructor(parts: TicketParts) {
    this.#parts = parts;
  }

  /** The kept attack card a message is, for the message shortcut. */
  cardAt(channel: string, ts: string): Promise<CardRecord | undefined> {
    return this.#parts.cards.byMessage(channel, ts);
  }

  /**
   * Checks at once that the person is logged in and the game day is kept; `read` then gathers,
   * more slowly, what the ticket is about.
   */
  async about(
    actor: Actor,
    about: { guid: string; teamId?: string | undefined } | { gameDay: { channel: string; ts: string } },
  ): Promise<{ read(): Promise<TicketSubject> }> {
    const parts = this.#parts;
    const login = await requireLogin(parts, actor);
    if ('guid' in about) return { read: () => this.#attack(login, about) };
    const gameDay = await parts.gameDays.byCard(about.gameDay.channel, about.gameDay.ts);
    if (!gameDay) throw new UserInputError('That game day is no longer kept, so a ticket cannot be filed from it.');
    return {
      read: async () => {
        const team = teamForAction(login, gameDay.attacks[0]?.teamId);
        const outcomes = Object.fromEntries(
          await Promise.all(gameDay.attacks.map(async (a) => [a.guid, cardOutcome(await parts.cards.get(a.guid))])),
        );
        const [permalink, names] = await Promise.all([
          parts.links.permalink(gameDay.channel, gameDay.ts),
          parts.directory.names(gameDayPeople(gameDay, outcomes)),
        ]);
        return { team, permalink, names, gameDay, outcomes };
      },
    };
  }

  async #attack(login: Login, about: { guid: string; teamId?: string | undefined }): Promise<TicketSubject> {
    const parts = this.#parts;
    const { guid, team, card } = await locateAttack(parts, login, about.guid, { teamId: about.teamId });
    const attack = await explained(
      { team: teamName(team), doing: 'prepare the ticket', subject: `attack ${guid}` },
      () => platformFor(parts, login, team).attacks.get(guid),
    );
    const [permalink, names] = await Promise.all([
      card ? parts.links.permalink(card.channel, card.ts) : undefined,
      parts.directory.names(card ? [card.startedBy.userId, ...card.haltedBy.map((halt) => halt.userId)] : []),
    ]);
    return { team, permalink, names, guid, attack, card };
  }

  /** Keeps a new draft of the person's about the subject, and reads its form when the project is configured. */
  async draft(
    actor: Actor,
    subject: TicketSubject,
    text: { summary: string; description: string },
  ): Promise<TicketForm> {
    const { team } = subject;
    const draft: TicketDraft = {
      id: randomUUID(),
      person: actor,
      teamId: team.identifier,
      ...text,
      ...('guid' in subject
        ? {
            entity: { id: subject.guid, type: 'ATTACK' as const },
            card: subject.card ? { guid: subject.card.guid, channel: subject.card.channel } : undefined,
            gameDayChannel: subject.card?.channel,
          }
        : {
            entity: { id: subject.gameDay.id, type: 'GAME_DAY' as const },
            gameDayChannel: subject.gameDay.endedAt ? undefined : subject.gameDay.channel,
          }),
    };
    await this.#save(draft);
    const { projectId, issueTypeId } = this.#parts.tracker;
    if (!projectId || !issueTypeId) return { draft, projectId, issueTypeId };
    return this.form(actor, draft, projectId, issueTypeId);
  }

  /** The draft's form for the project and issue type chosen. */
  async form(actor: Actor, draft: TicketDraft, projectId: string, issueTypeId: string): Promise<TicketForm> {
    const login = await requireLogin(this.#parts, actor);
    const team = teamForAction(login, draft.teamId);
    const api = platformFor(this.#parts, login, team);
    const [meta, labels] = await explained({ team: teamName(team), doing: "read the tracker's fields" }, () =>
      Promise.all([api.tracker.issueMeta(projectId, issueTypeId), api.tracker.labels()]),
    );
    const withForm = { ...draft, projectId, issueTypeId, meta };
    await this.#save(withForm);
    return { draft: withForm, fields: { meta, labels } };
  }

  async #save(draft: TicketDraft): Promise<void> {
    await this.#parts.store.set(keys.ticketDraft.key(draft.id), draft, keys.ticketDraft.ttlMs);
  }

  /** The draft, only for the person who opened it. */
  async draftOf(actor: Actor, id: string): Promise<TicketDraft | undefined> {
    const draft = await this.#parts.store.get<TicketDraft>(keys.ticketDraft.key(id));
    return draft && samePerson(draft.person, actor) ? draft : undefined;
  }

  /** The tickets already filed for an attack of the person's teams. */
  async list(actor: Actor, id: string): Promise<{ guid: string; issues: TrackerIssue[] }> {
    const login = await requireLogin(this.#parts, actor);
    const { guid, team } = await locateAttack(this.#parts, login, id);
    const issues = await explained({ team: teamName(team), doing: 'list the tickets' }, () =>
      platformFor(this.#parts, login, team).tracker.issues([guid]),
    );
    return { guid, issues };
  }

  /** Files the draft's ticket with the person's own session, once however often it is submitted. */
  async file(actor: Actor, draft: TicketDraft, fields: CreateTrackerIssueRequest['fields']): Promise<Filing> {
    const { store, logger, recorder } = this.#parts;
    const claim = keys.ticketFiled.key(draft.id);
    // Who files, and for which team, is settled before the claim: a refusal here leaves nothing held.
    const login = await requireLogin(this.#parts, actor);
    const team = teamForAction(login, draft.teamId);
    const holder = randomUUID();
    if (!(await store.claim(claim, keys.ticketFiled.ttlMs, holder))) return { kind: 'taken' };
    let issue: { key: string; url?: string | undefined };
    try {
      issue = await platformFor(this.#parts, login, team).tracker.createIssue({ entity: draft.entity, fields });
    } catch (error) {
      if (!outcomeKnown(error)) {
        logger.warn({ err: error }, 'ticket creation has an unknown outcome');
        return { kind: 'unknown', error, team };
      }
      await store.release(claim, holder);
      return { kind: 'refused', error, team };
    }
    await recorder.record({
      kind: 'ticket',
      by: actor,
      platformUser: login.session.identifier,
      teamId: team.identifier,
      ticket: issue,
      attack: draft.entity.type === 'ATTACK' ? draft.entity.id : undefined,
      gameDay: draft.entity.type === 'GAME_DAY' ? draft.entity.id : undefined,
      card: draft.card?.guid,
      gameDayChannel: draft.gameDayChannel,
    });
    return { kind: 'filed', issue };
  }
}
