import type { Logger } from './logger.ts';
import type { AttackService } from './attacks/service.ts';
import type { GameDayService } from './gamedays/service.ts';
import type { GuardrailService } from './guardrails/service.ts';
import type { LoginService } from './login/service.ts';
import type { Messenger } from './slack/messenger.ts';
import type { TicketService } from './tickets/service.ts';
import type { WorkflowService } from './workflow/service.ts';

/**
 * What every way in receives (a subcommand's run, a listener, a workflow step, a job): one
 * service per feature, the bot's own Slack messages, and the slash command's name for words.
 */
export interface Services {
  attacks: AttackService;
  gamedays: GameDayService;
  guardrails: GuardrailService;
  login: LoginService;
  tickets: TicketService;
  workflow: WorkflowService;
  /** The bot's own Slack calls: channel messages, thread replies, paced card updates. */
  slack: Messenger;
  /** The slash command's name, as the words say it. */
  command: string;
  /** The platform's web UI, as links in words say it. */
  appUrl: string | undefined;
  logger: Logger;
  /** App Home, followed to the end of an attack halted there (a job redraws it). */
  homes: { followHalts(): Promise<void> };
}
