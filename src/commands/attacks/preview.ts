import type { Services } from '../../services.ts';
import type { AskFrom } from '../../attacks/service.ts';
import type { StartOutcome } from '../../attacks/startPolicy.ts';
import { RUN_PRIVILEGE, teamName } from '../../attacks/access.ts';
import { GuardsUnknownError } from '../../guardrails/guards.ts';
import {
  attackPreviewMessage,
  cannotRunText,
  previewCancelledText,
  previewExpiredText,
  startedText,
} from '../../views/attacks/attackPreview.ts';
import { approvalRequestedText, ruleText } from '../../views/guardrails/approval.ts';
import { guardLine, unknownGuardsText } from '../../views/guardrails/guards.ts';
import { type Action, message, replacement, type Reply } from '../command.ts';

/** What a start through the policy says to the person: started, or the request posted. */
async function startReply(
  deps: Services,
  ask: Pick<AskFrom, 'request' | 'team'>,
  outcome: StartOutcome,
): Promise<Reply> {
  if (outcome.kind === 'approval requested') return message(approvalRequestedText(outcome.rule, outcome.channel));
  const { started } = outcome;
  const permalink = started.card ? await deps.slack.permalink(started.card.channel, started.card.ts) : undefined;
  return message(startedText(ask.request, teamName(ask.team), started, deps.command, permalink));
}

/**
 * The preview: a guard whose state cannot be told is shown, and Start becomes Start anyway; Start
 * is offered only to a session the platform would let start it.
 */
export async function preview(deps: Services, ask: AskFrom, savedAs?: string) {
  const offer = await deps.attacks.preview(ask);
  const { channel } = offer;
  const shown = { request: ask.request, teamName: teamName(ask.team), command: deps.command, channel };
  if ('refused' in offer)
    return attackPreviewMessage({ ...shown, refused: cannotRunText(shown.teamName, RUN_PRIVILEGE) });
  const { unknown, rule } = offer;
  return attackPreviewMessage({
    ...shown,
    pendingId: offer.pendingId,
    blast: offer.blast,
    guards: offer.checks.map((c) => guardLine(c.guard.spec, c.reading)),
    ...(unknown.length
      ? { warning: `${unknownGuardsText(unknown)} Start anyway only if you will watch it yourself.` }
      : {}),
    ...(rule ? { approval: ruleText(rule) } : {}),
    ...(savedAs ? { savedAs } : {}),
    rehearsal: await deps.gamedays.days.rehearsing(channel),
  });
}

/**
 * What a command does with a checked attack, typed or saved: the preview, or with `--yes` the
 * start, where a freeze, a second person and every guard apply as on a Start click.
 */
export async function previewOrStart(deps: Services, ask: AskFrom): Promise<Reply> {
  if (ask.request.yes) {
    try {
      // --yes skips the preview, never a freeze, a guard or the second person.
      return await startReply(deps, ask, await deps.attacks.start(ask, { kind: 'command' }));
    } catch (error) {
      // A guard that cannot be read gets the preview, with Start anyway.
      if (!(error instanceof GuardsUnknownError)) throw error;
    }
  }
  return { kind: 'message', message: await preview(deps, ask) };
}

/** Start on a preview: exactly one attack, whatever the number of clicks or deliveries. */
export async function startFromPreview(action: Action, deps: Services): Promise<Reply> {
  const started = await deps.attacks.startPreviewed(action.value ?? '', action.actor);
  if (started.kind === 'taken') return { kind: 'none' };
  if (started.kind === 'expired') return replacement(previewExpiredText);
  const reply = await startReply(deps, started.ask, started.outcome);
  return reply.kind === 'message' ? { ...reply, replaceOriginal: true } : reply;
}

export async function cancelPreview(action: Action, deps: Services): Promise<Reply> {
  return (await deps.attacks.cancelPreviewed(action.value ?? ''))
    ? replacement(previewCancelledText)
    : { kind: 'none' };
}
