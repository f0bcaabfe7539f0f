import type { PlatformClient } from '../client/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { KeyValueStore } from '../store/keyValue.ts';
import type { SessionStore } from '../store/sessions.ts';
import type { CardStore } from '../attacks/cards.ts';
import type { Recorder } from '../attacks/events.ts';
import type { SavedAttacks } from '../attacks/saved.ts';
import type { StartAsk } from '../attacks/start.ts';
import type { StartOutcome, StartWay } from '../attacks/startPolicy.ts';
import type { Watches } from '../attacks/watches.ts';
import type { GuardStore } from '../guardrails/guards.ts';
import type { GuardrailService } from '../guardrails/service.ts';
import type { GameDays } from './gamedays.ts';
import type { ReportSharing } from './report.ts';

/** What game days, their plans and their reports use. */
export interface GameDayParts {
  gameDays: GameDays;
  store: KeyValueStore;
  cards: CardStore;
  sessions: SessionStore;
  platform: PlatformClient;
  events: Recorder;
  logger: Logger;
  clock: { now(): number };
  config: Pick<Config, 'countdownSeconds'>;
  /** Where a game day's report is shared, or its failure said. */
  reports: ReportSharing;
  guards: GuardStore;
  watches: Watches;
  savedAttacks: SavedAttacks;
  guardrails: GuardrailService;
  /** What a plan step starts at zero: the attacks' start policy, with the runner's session. */
  startStep(ask: StartAsk, way: StartWay): Promise<StartOutcome>;
}
