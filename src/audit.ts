import type { AttackEvent } from './attacks/events.ts';
import type { TargetSet } from './attacks/blastRadius.ts';
import type { ApprovalRule } from './guardrails/approvalRequests.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';
import type { Actor } from './store/sessions.ts';

export type AuditEvent =
  | 'login'
  | 'logout'
  | 'team_selected'
  | 'attack_started'
  | 'start_refused'
  | 'attack_halted'
  | 'halt_all'
  | 'halt_everything'
  | 'ticket_filed'
  | 'note_added'
  | 'freeze'
  | 'unfreeze'
  | 'approval_requested'
  | 'attack_approved'
  | 'approval_rejected'
  | 'watch_set'
  | 'watch_renewed'
  | 'watch_removed'
  | 'attack_saved'
  | 'saved_attack_deleted'
  | 'slackbot_tool';

/**
 * One structured line per state change, naming the Slack user, the platform identity, the team
 * and the attack, so that who did what can be reconstructed from the logs alone.
 */
export function audit(
  logger: Logger,
  event: AuditEvent,
  actor: Pick<Actor, 'workspaceId' | 'userId' | 'userName'>,
  details: {
    platformUser?: string | undefined;
    team?: string | undefined;
    attack?: string | undefined;
    [key: string]: unknown;
  },
): void {
  logger.info(
    {
      audit: event,
      slackWorkspace: actor.workspaceId,
      slackUser: actor.userId,
      slackUserName: actor.userName,
      ...details,
    },
    `audit: ${event}`,
  );
}

/**
 * Counts an event in `faultline_attack_events_total`. An ending is counted where a card first
 * shows it, however it was learnt (the recorder does); a halt being verified is counted when it
 * is verified or found stuck, not at every read.
 */
export function countEvent(metrics: Pick<Metrics, 'attackEvents'>, event: AttackEvent): void {
  if (event.kind === 'changed' || event.kind === 'ended') return;
  if (event.kind === 'halt checked' && event.news === 'progress') return;
  metrics.attackEvents.inc({
    event:
      event.kind === 'halted' && event.result !== 'halted'
        ? `halt found ${event.result}`
        : event.kind === 'halt checked'
          ? `halt ${event.news}`
          : event.kind,
    cause: event.kind === 'halted' || event.kind === 'mass halted' || event.kind === 'halt checked' ? event.cause : '',
  });
}

/** The audit line of an event, or its log line; `ruleText` words an approval's rule. */
export function auditEvent(logger: Logger, event: AttackEvent, ruleText: (rule: ApprovalRule) => string): void {
  const line = auditLine(event, ruleText);
  if (line && 'by' in event) audit(logger, line[0], event.by, line[1]);
  else logLine(logger, event);
}

type Details = Parameters<typeof audit>[3];

/** The names an audit line keeps of a resolved target; the rest are counted. */
const auditedNames = 100;

/** What the start checked it would hit, as the audit keeps it. */
const auditedSet = ({ kind, matches, hits, outOf }: TargetSet) => ({
  kind,
  hits,
  outOf,
  matches: matches.slice(0, auditedNames),
  ...(matches.length > auditedNames ? { more: matches.length - auditedNames } : {}),
});

function auditLine(event: AttackEvent, ruleText: (rule: ApprovalRule) => string): [AuditEvent, Details] | undefined {
  switch (event.kind) {
    case 'started':
      return [
        'attack_started',
        {
          platformUser: event.platformUser,
          team: event.card.teamId,
          attack: event.card.guid,
          type: event.request.type,
          args: event.request.args,
          target: event.request.target,
          ...(event.targets ? { resolved: auditedSet(event.targets) } : {}),
        },
      ];
    case 'refused':
      return ['start_refused', { type: event.request.type, teamName: event.teamName }];
    case 'halted':
      if (event.result === 'halted')
        return [
          'attack_halted',
          {
            platformUser: event.platformUser,
            team: event.teamId,
            attack: event.guid,
            kind: event.attackKind,
            reason: event.reason,
            by: event.cause,
            scope: event.scope,
            guard: event.guard?.key,
          },
        ];
      return undefined;
    case 'mass halted': {
      const audited: AuditEvent = event.scope === 'all' ? 'halt_all' : 'halt_everything';
      return [
        audited,
        {
          platformUser: event.platformUser,
          by: event.cause,
          ...(event.scope === 'all' ? { attacks: event.halted } : {}),
        },
      ];
    }
    case 'note':
      return [
        'note_added',
        {
          platformUser: event.platformUser,
          team: event.teamId,
          attack: event.guid,
        },
      ];
    case 'ticket':
      return [
        'ticket_filed',
        {
          platformUser: event.platformUser,
          team: event.teamId,
          attack: event.attack,
          gameDay: event.gameDay,
          ticket: event.ticket.key,
        },
      ];
    case 'frozen':
      return [
        'freeze',
        {
          platformUser: event.platformUser,
          team: event.teamId,
          scope: event.scope,
          reason: event.reason,
        },
      ];
    case 'approval': {
      const audited: AuditEvent =
        event.decision === 'requested'
          ? 'approval_requested'
          : event.decision === 'approved'
            ? 'attack_approved'
            : 'approval_rejected';
      return [
        audited,
        {
          ...(event.platformUser ? { platformUser: event.platformUser } : {}),
          team: event.teamId,
          ...(event.attack ? { attack: event.attack } : {}),
          ...(event.requestedBy ? { requestedBy: event.requestedBy } : {}),
          ...event.details,
          ...(event.rule ? { rule: ruleText(event.rule) } : {}),
        },
      ];
    }
    default:
      return undefined;
  }
}

/** What is logged of an event that has no audit line. */
function logLine(logger: Logger, event: AttackEvent): void {
  if (event.kind === 'halted')
    logger.info(
      { attack: event.guid, stage: event.state?.stage, result: event.result, by: event.cause },
      'halt asked for an attack that is not running',
    );
  if (event.kind === 'plan step')
    logger.info(
      { channel: event.channel, step: event.step.stepId, what: event.step.what, by: event.step.by },
      'game-day plan step',
    );
  if (event.kind !== 'halt checked') return;
  const { progress, news } = event;
  if (!progress) {
    logger.warn({ attack: event.guid }, 'no session can read the executions of a halted attack');
    return;
  }
  const log = { attack: event.guid, stopped: progress.stopped, total: progress.total, running: progress.running };
  if (news === 'verified') logger.info(log, 'halt verified: every target has stopped');
  if (news === 'stuck') logger.warn(log, 'a target still runs a minute after its halt');
}
