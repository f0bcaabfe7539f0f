// The tickets' service: a draft kept for the person who opened the form, and a ticket filed once from it.
import { randomUUID } from 'node:crypto';
import type { CreateTrackerIssueRequest } from '../client/payloads.ts';
import { ServerError, TimeoutError, UnreachableError } from '../client/errors.ts';
import type { IssueMeta, TeamEntry, TrackerEntityType } from '../client/index.ts';
import type { Deps } from '../deps.ts';
import type { Actor } from '../store/sessions.ts';
import { keys } from '../store/keys.ts';
import { teamForAction } from '../attacks/locate.ts';
import { platformFor, requireLogin } from '../attacks/access.ts';

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

/** A new draft of the person's, about an attack or a game day of the team. */
export const newDraft = (
  actor: Actor,
  team: TeamEntry,
  about: Omit<TicketDraft, 'id' | 'person' | 'teamId'>,
): TicketDraft => ({ id: randomUUID(), person: actor, teamId: team.identifier, ...about });

export async function saveDraft(deps: Deps, draft: TicketDraft): Promise<void> {
  await deps.store.set(keys.ticketDraft.key(draft.id), draft, keys.ticketDraft.ttlMs);
}

/** The draft, only for the person who opened it. */
export async function loadDraft(deps: Deps, id: string, actor: Actor): Promise<TicketDraft | undefined> {
  const draft = await deps.store.get<TicketDraft>(keys.ticketDraft.key(id));
  return draft && draft.person.userId === actor.userId && draft.person.workspaceId === actor.workspaceId
    ? draft
    : undefined;
}

/** Whether a failed create certainly changed nothing: a refusal, as opposed to silence or a crash. */
function outcomeKnown(error: unknown): boolean {
  if (error instanceof TimeoutError || error instanceof ServerError) return false;
  if (error instanceof UnreachableError) return !error.outcomeUnknown;
  return true;
}

export type Filing =
  | { kind: 'filed'; issue: { key: string; url?: string | undefined } }
  /** Another delivery of the same submission files it (or did). */
  | { kind: 'taken' }
  /** It may have been filed: the claim stays, so a second submission cannot file it twice. */
  | { kind: 'unknown'; error: unknown; team: TeamEntry }
  /** Refused: nothing was filed, so the person may correct the form and submit again. */
  | { kind: 'refused'; error: unknown; team: TeamEntry };

/** Files the draft's ticket with the person's own session, once however often it is submitted. */
export async function fileTicket(
  deps: Deps,
  actor: Actor,
  draft: TicketDraft,
  fields: CreateTrackerIssueRequest['fields'],
): Promise<Filing> {
  const claim = keys.ticketFiled.key(draft.id);
  const holder = randomUUID();
  if (!(await deps.store.claim(claim, keys.ticketFiled.ttlMs, holder))) return { kind: 'taken' };
  const login = await requireLogin(deps, actor);
  const team = teamForAction(login, draft.teamId);
  let issue: { key: string; url?: string | undefined };
  try {
    issue = await platformFor(deps, login, team).tracker.createIssue({ entity: draft.entity, fields });
  } catch (error) {
    if (!outcomeKnown(error)) {
      deps.logger.warn({ err: error }, 'ticket creation has an unknown outcome');
      return { kind: 'unknown', error, team };
    }
    await deps.store.release(claim, holder);
    return { kind: 'refused', error, team };
  }
  await deps.events.record({
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
