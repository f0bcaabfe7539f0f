import type { PlatformClient } from './client/index.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import type { KeyValueStore } from './store/keyValue.ts';
import type { SessionStore } from './store/sessions.ts';
import type { Actor } from './commands/reply.ts';
import type { CardStore } from './attacks/cards.ts';
import type { Poller } from './attacks/poller.ts';
import type { Messenger } from './slack/messenger.ts';
import type { CatalogueCache } from './attacks/catalogue.ts';
import type { GameDays } from './gamedays/gameDays.ts';

export type AuditEvent = 'login' | 'logout' | 'team_selected' | 'attack_started' | 'attack_halted' | 'halt_all' | 'halt_everything' | 'ticket_filed' | 'note_added';

/** Everything a handler may use, built once in main.ts; tests pass real local parts through it. */
export interface Deps {
  config: Config;
  platform: PlatformClient;
  sessions: SessionStore;
  store: KeyValueStore;
  logger: Logger;
  clock: { now(): number };
  /** The bot's own Slack calls: channel messages, thread replies, paced card updates. */
  slack: Messenger;
  cards: CardStore;
  poller: Poller;
  catalogues: CatalogueCache;
  gameDays: GameDays;
}

/**
 * One structured line per state change, naming the Slack user, the platform identity, the team
 * and the attack, so that who did what can be reconstructed from the logs alone.
 */
export function audit(
  logger: Logger,
  event: AuditEvent,
  actor: Pick<Actor, 'workspaceId' | 'userId' | 'userName'>,
  details: { platformUser?: string | undefined; team?: string | undefined; attack?: string | undefined; [key: string]: unknown },
): void {
  logger.info({ audit: event, slackWorkspace: actor.workspaceId, slackUser: actor.userId, slackUserName: actor.userName, ...details }, `audit: ${event}`);
}
