import { BadRequestError, NoIntegrationError } from '../../client/errors.ts';
import type { IssueMeta, ScopedPlatform, TeamEntry } from '../../client/index.ts';
import type { Actor, Login } from '../../store/sessions.ts';
import { cardOutcome, parseGameDayRef, type GameDayRecord } from '../../gamedays/gamedayRecord.ts';
import { locateAttack, teamForAction } from '../../attacks/locate.ts';
import type { CardRecord } from '../../attacks/cards.ts';
import type { Deps } from '../../deps.ts';
import { ticketFieldsFromInputs, ticketProjectFromInputs } from './ticketForm.ts';
import { parseAttackRef } from '../../views/attacks/attackCard.ts';
import { describeError } from '../../views/errorReply.ts';
import { loadingModal } from '../../views/notice.ts';
import {
  ticketFieldId,
  ticketModal,
  ticketProjectModal,
  TICKET_DESCRIPTION,
  TICKET_LABELS,
  TICKET_SUMMARY,
} from '../../views/tickets/ticket.ts';
import {
  ticketListMessage,
  notACardModal,
  ticketFiledModal,
  ticketFormExpiredModal,
  ticketUnconfirmedModal,
} from '../../views/tickets/ticketReplies.ts';
import { ticketPrefill, gameDayPeople, gameDayTicketPrefill } from '../../views/tickets/ticketPrefill.ts';
import type { Action, Reply, Submission, SubmissionReply } from '../reply.ts';
import { subcommand } from '../command.ts';
import { contract } from '../contract.ts';
import { ticketInputFields } from '../../tickets/fields.ts';
import { explained, UserInputError } from '../../errors.ts';
import { attackIdWord } from '../arguments.ts';
import { platformFor, requireLogin, teamName } from '../../attacks/access.ts';
import type { ModalView } from '@slack/types';
import { fileTicket, loadDraft, newDraft, saveDraft, type TicketDraft } from '../../tickets/tickets.ts';

/** The form once project and issue type are known: the tracker's required fields, and its labels. */
async function ticketForm(
  deps: Deps,
  api: ScopedPlatform,
  draft: TicketDraft,
  projectId: string,
  issueTypeId: string,
): Promise<ModalView> {
  const [meta, labels] = await Promise.all([api.tracker.issueMeta(projectId, issueTypeId), api.tracker.labels()]);
  await saveDraft(deps, { ...draft, projectId, issueTypeId, meta });
  return ticketModal({
    summary: draft.summary,
    description: draft.description,
    meta,
    labels,
    privateMetadata: draft.id,
  });
}

/** The ticket modal for an attack or a game day: it opens at once and fills in from the platform. */
async function openTicket(
  deps: Deps,
  actor: Actor,
  about: { guid: string; teamId?: string | undefined } | { gameDay: { channel: string; ts: string } },
): Promise<Reply> {
  const login = await requireLogin(deps, actor);
  const gameDay = 'gameDay' in about ? await deps.gameDays.byCard(about.gameDay.channel, about.gameDay.ts) : undefined;
  if ('gameDay' in about && !gameDay)
    throw new UserInputError('That game day is no longer kept, so a ticket cannot be filed from it.');
  return {
    kind: 'openModal',
    view: loadingModal('File a ticket'),
    followUp: async () => {
      const { team, draft } =
        'guid' in about
          ? await attackDraft(deps, actor, login, about)
          : await gameDayDraft(deps, actor, login, gameDay!);
      await saveDraft(deps, draft);
      const { projectId, issueTypeId } = deps.config.tracker;
      if (!projectId || !issueTypeId) return ticketProjectModal({ privateMetadata: draft.id, projectId, issueTypeId });
      return explained({ team: teamName(team), doing: "read the tracker's fields" }, () =>
        ticketForm(deps, platformFor(deps, login, team), draft, projectId, issueTypeId),
      );
    },
  };
}

async function attackDraft(
  deps: Deps,
  actor: Actor,
  login: Login,
  about: { guid: string; teamId?: string | undefined },
): Promise<{ team: TeamEntry; draft: TicketDraft }> {
  const { guid, team, card } = await locateAttack(deps, login, about.guid, { teamId: about.teamId });
  const api = platformFor(deps, login, team);
  const attack = await explained({ team: teamName(team), doing: 'prepare the ticket', subject: `attack ${guid}` }, () =>
    api.attacks.get(guid),
  );
  const [permalink, names] = await Promise.all([
    card ? deps.slack.permalink(card.channel, card.ts) : undefined,
    deps.people.names(card ? [card.startedBy.userId, ...card.haltedBy.map((halt) => halt.userId)] : []),
  ]);
  const prefill = ticketPrefill({
    ...(card ? { card } : {}),
    attack,
    permalink,
    appUrl: deps.config.platform.appUrl,
    names,
  });
  return {
    team,
    draft: newDraft(actor, team, {
      entity: { id: guid, type: 'ATTACK' },
      ...prefill,
      card: card ? { guid: card.guid, channel: card.channel } : undefined,
      gameDayChannel: card?.channel,
    }),
  };
}

async function gameDayDraft(
  deps: Deps,
  actor: Actor,
  login: Login,
  record: GameDayRecord & { id: string },
): Promise<{ team: TeamEntry; draft: TicketDraft }> {
  const team = teamForAction(login, record.attacks[0]?.teamId);
  const outcomes = Object.fromEntries(
    await Promise.all(record.attacks.map(async (a) => [a.guid, cardOutcome(await deps.cards.get(a.guid))] as const)),
  );
  const [permalink, names] = await Promise.all([
    deps.slack.permalink(record.channel, record.ts),
    deps.people.names(gameDayPeople(record, outcomes)),
  ]);
  return {
    team,
    draft: newDraft(actor, team, {
      entity: { id: record.id, type: 'GAME_DAY' },
      ...gameDayTicketPrefill(record, outcomes, permalink, names),
      gameDayChannel: record.endedAt ? undefined : record.channel,
    }),
  };
}

export const ticketCommand = subcommand({
  name: 'ticket',
  usage: 'ticket <attack id>',
  summary:
    "Opens a tracker ticket form prefilled from the attack; the ticket's key is posted in the attack card's thread.",
  examples: ['ticket 6f1c2d3e-aaaa-bbbb-cccc-1234567890ab'],
  args: contract({ command: 'ticket', usage: 'ticket <attack id>', words: { id: attackIdWord } }),
  async run(request, { words }, deps) {
    return openTicket(deps, request.actor, { guid: words.id });
  },
});

export const ticketsCommand = subcommand({
  name: 'tickets',
  usage: 'tickets <attack id>',
  summary: 'Lists the tracker tickets already filed for an attack.',
  examples: ['tickets 6f1c2d3e-aaaa-bbbb-cccc-1234567890ab'],
  args: contract({ command: 'tickets', usage: 'tickets <attack id>', words: { id: attackIdWord } }),
  async run(request, { words }, deps) {
    const login = await requireLogin(deps, request.actor);
    const { guid, team } = await locateAttack(deps, login, words.id);
    const issues = await explained({ team: teamName(team), doing: 'list the tickets' }, () =>
      platformFor(deps, login, team).tracker.issues([guid]),
    );
    return { kind: 'message', message: ticketListMessage(guid, issues) };
  },
});

/** File ticket on an attack card. */
export async function fileTicketFromCard(action: Action, deps: Deps): Promise<Reply> {
  const ref = parseAttackRef(action.value);
  if (!ref) throw new UserInputError('That button no longer points at an attack.');
  return openTicket(deps, action.actor, { guid: ref.guid, teamId: ref.teamId });
}

/** The "File tracker ticket" message shortcut: any attack card, by the message it was run on. */
export async function fileTicketFromMessage(
  shortcut: { actor: Actor; channel: string; messageTs: string },
  deps: Deps,
): Promise<Reply> {
  const card: CardRecord | undefined = await deps.cards.byMessage(shortcut.channel, shortcut.messageTs);
  if (!card)
    return {
      kind: 'openModal',
      view: notACardModal(deps.config.slack.command),
    };
  return openTicket(deps, shortcut.actor, { guid: card.guid, teamId: card.teamId });
}

/** File ticket on a game-day summary: one ticket for the whole game day. */
export async function fileTicketForGameDay(action: Action, deps: Deps): Promise<Reply> {
  const ref = parseGameDayRef(action.value);
  if (!ref) throw new UserInputError('That button no longer points at a game day.');
  return openTicket(deps, action.actor, { gameDay: ref });
}

const expired = (deps: Deps): SubmissionReply => ({
  kind: 'update',
  view: ticketFormExpiredModal(deps.config.slack.command),
});

/** First step when no project and issue type are configured. */
export async function submitTicketProject(submission: Submission, deps: Deps): Promise<SubmissionReply> {
  const draft = await loadDraft(deps, submission.privateMetadata, submission.actor);
  if (!draft) return expired(deps);
  const chosen = ticketProjectFromInputs(submission.inputs);
  if ('errors' in chosen) return { kind: 'errors', errors: chosen.errors };
  const login = await requireLogin(deps, submission.actor);
  const team = teamForAction(login, draft.teamId);
  const view = await explained({ team: teamName(team), doing: "read the tracker's fields" }, () =>
    ticketForm(deps, platformFor(deps, login, team), draft, chosen.projectId, chosen.issueTypeId),
  );
  return { kind: 'update', view };
}

/** Where the platform's refusal of a field shows: on its input when the form has one. */
function fieldErrorBlock(field: string, meta: IssueMeta): string {
  if (field === 'summary') return TICKET_SUMMARY;
  if (field === 'description') return TICKET_DESCRIPTION;
  if (field === 'labels') return TICKET_LABELS;
  return ticketInputFields(meta).some((f) => f.key === field) ? ticketFieldId(field) : TICKET_SUMMARY;
}

/** Files the ticket once, however often Slack delivers the submission. */
export async function submitTicket(submission: Submission, deps: Deps): Promise<SubmissionReply> {
  const draft = await loadDraft(deps, submission.privateMetadata, submission.actor);
  if (!draft?.meta || !draft.projectId || !draft.issueTypeId) return expired(deps);
  const mapped = ticketFieldsFromInputs(submission.inputs, draft.meta, {
    projectId: draft.projectId,
    issueTypeId: draft.issueTypeId,
    summary: draft.summary,
    description: draft.description,
  });
  if ('errors' in mapped) return { kind: 'errors', errors: mapped.errors };
  const filing = await fileTicket(deps, submission.actor, draft, mapped.fields);
  if (filing.kind === 'taken') return { kind: 'clear' };
  if (filing.kind === 'filed') return { kind: 'update', view: ticketFiledModal(filing.issue) };
  const { error, team } = filing;
  const check = draft.entity.type === 'ATTACK' ? `tickets ${draft.entity.id}` : 'tickets <attack id>';
  const command = deps.config.slack.command;
  if (filing.kind === 'unknown') return { kind: 'update', view: ticketUnconfirmedModal(command, check) };
  if (error instanceof BadRequestError && error.field) {
    const name = draft.meta.fields.find((f) => f.key === error.field)?.name ?? error.field;
    const text = `The tracker did not accept ${name}. Check it and submit again.`;
    return { kind: 'errors', errors: { [fieldErrorBlock(error.field, draft.meta)]: text } };
  }
  if (error instanceof NoIntegrationError) throw error;
  const words = describeError(error, { command, team: teamName(team), doing: 'file the ticket', check });
  return { kind: 'errors', errors: { [TICKET_SUMMARY]: words.text } };
}
