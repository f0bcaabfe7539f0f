import type { Logger } from './logger.ts';
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
