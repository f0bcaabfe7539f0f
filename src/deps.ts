import type { PlatformClient } from './client/index.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import type { KeyValueStore } from './store/keyValue.ts';
import type { SessionStore } from './store/sessions.ts';
import type { CardStore } from './attacks/cards.ts';
import type { Poller } from './attacks/poller.ts';
import type { People } from './slack/people.ts';
import type { CatalogueCache } from './attacks/catalogue.ts';
import type { GameDays } from './gamedays/gamedays.ts';
import type { ReportSharing } from './gamedays/report.ts';
import type { Freezes } from './guardrails/freezes.ts';
import type { GuardStore } from './guardrails/guards.ts';
import type { Watches } from './attacks/watches.ts';
import type { Recorder } from './attacks/events.ts';
import type { ApprovalBoard } from './guardrails/approvals.ts';
import type { FreezeNotices } from './guardrails/sweep.ts';
import type { Metrics } from './metrics.ts';
import type { StartNotices } from './attacks/startIntents.ts';
import type { SavedAttacks } from './attacks/saved.ts';
import type { PresenceBoard } from './attacks/presence.ts';
import type { Services } from './services.ts';
import type { GuardrailParts } from './guardrails/service.ts';
import type { GameDayParts } from './gamedays/service.ts';

/** Everything a handler may use, built once in main.ts; tests pass real local parts through it. The features not yet served by a service of their own still read their parts here. */
export interface Deps
  extends Services,
    Pick<GuardrailParts, 'startApproved' | 'planApprovals'>,
    Pick<GameDayParts, 'startStep'> {
  config: Config;
  platform: PlatformClient;
  sessions: SessionStore;
  /** Where a live attack's attendant is asked "Still watching?". */
  presence: PresenceBoard;
  /** What a restarted bot tells the starter of a start it finished. */
  startNotices: StartNotices;
  store: KeyValueStore;
  logger: Logger;
  clock: { now(): number };
  /** People's names for text that leaves Slack (tickets, halt reasons, notes on the platform). */
  people: People;
  cards: CardStore;
  /** Where what happened to an attack is said; it shows it on the card, in threads and timelines, the audit log and the metrics. */
  events: Recorder;
  metrics: Metrics;
  /** Where requests for a second person are posted, and closed once answered. */
  approvals: ApprovalBoard;
  poller: Poller;
  catalogues: CatalogueCache;
  gameDays: GameDays;
  /** Where a game day's report is shared, or its failure said. */
  reports: ReportSharing;
  freezes: Freezes;
  /** Where a freeze says what keeps it from halting. */
  freezeNotices: FreezeNotices;
  guards: GuardStore;
  /** Each team's saved attacks (`save`, `saved`, `run`). */
  savedAttacks: SavedAttacks;
  /** Channels bound to teams (`watch`): `all()` lists them, e.g. for a game day's report. */
  watches: Watches;
  /** What App Home follows by itself; Home is drawn by a way in, so the listener table hands it here. */
  homes: {
    /** Draws Home again for whoever halted an attack there, once it has ended. */
    followHalts(): Promise<void>;
  };
}
