/**
 * The guardrails alone: the in-memory store, the freezes, guards, cards and sessions on it, the
 * platform client against the simulator, and recorders in place of Slack (the approval board and
 * the event recorder). `useGuardrails()` sets them up around each test of a file.
 */
import { randomBytes } from 'node:crypto';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type DemoUser, type Simulator, startSimulator } from '@faultline/platform-sim';
import { CardStore } from '../../src/attacks/cards.ts';
import { createPlatformClient, type PlatformClient } from '../../src/client/index.ts';
import { type GuardrailParts, GuardrailService } from '../../src/guardrails/service.ts';
import type { ApprovalClosing, ApprovalRequest } from '../../src/guardrails/approvals.ts';
import { parseApprovalRules } from '../../src/guardrails/approvalRequests.ts';
import { Freezes } from '../../src/guardrails/freezes.ts';
import { GuardStore } from '../../src/guardrails/guards.ts';
import { createLogger } from '../../src/logger.ts';
import type { StartAsk } from '../../src/attacks/start.ts';
import { type ApprovedWay, startPolicy } from '../../src/attacks/startPolicy.ts';
import type { StepRef } from '../../src/gamedays/plan.ts';
import { approvedStepStarts, stepApprovalClosed } from '../../src/gamedays/planStepState.ts';
import { SessionCipher } from '../../src/store/cipher.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { type Actor, SessionStore } from '../../src/store/sessions.ts';

export const channel = 'C0GUARDS';
export const monitoring = { integrationA: 'acme-metrics', domainA: 'app.monitoring-a.example', uriB: undefined };

/** An event as the recorder saw it: its kind and whatever else it carried. */
export type Seen = { kind: string; [field: string]: unknown };

export interface Guardrails {
  sim: Simulator;
  platform: PlatformClient;
  store: KeyValueStore;
  deps: GuardrailParts;
  /** The service on those parts. */
  service: GuardrailService;
  /** Every event the guardrails recorded, in order. */
  events: Seen[];
  /** Requests the board posted. */
  posted: ApprovalRequest[];
  /** How each closed request ended, as the board was told. */
  closings: ApprovalClosing[];
  /** Moves this side's clock on (the simulator keeps its own). */
  later(ms: number): void;
  /** A Slack person logged in to the platform as a demo user (the sim's owner unless told). */
  login(userId: string, user?: DemoUser): Promise<Actor>;
  /** Attacks the platform was asked to create. */
  creates(): number;
}

export function useGuardrails(): Guardrails {
  const t = { events: [], posted: [], closings: [] } as unknown as Guardrails;
  let dispatcher: Agent;
  let offset = 0;

  beforeAll(async () => {
    t.sim = await startSimulator();
    dispatcher = new Agent({ connect: { ca: t.sim.ca } });
    t.platform = createPlatformClient({ baseUrl: t.sim.url, dispatcher, logger: createLogger('silent') });
  });

  afterAll(async () => {
    await t.store?.close();
    await t.platform?.close();
    await dispatcher?.close();
    await t.sim?.stop();
  });

  beforeEach(async () => {
    t.sim.reset();
    await t.store?.close();
    t.store = createKeyValueStore('memory://');
    t.events = [];
    t.posted = [];
    t.closings = [];
    offset = 0;
    const rules = parseApprovalRules('type=memory');
    if (!('rules' in rules)) throw new Error(rules.wrong);
    t.deps = {
      config: { approvalRules: rules.rules, monitoring, pollSeconds: 5 },
      platform: t.platform,
      store: t.store,
      sessions: new SessionStore(t.store, new SessionCipher(randomBytes(32))),
      logger: createLogger('silent'),
      clock: { now: () => Date.now() + offset },
      freezes: new Freezes(t.store),
      guards: new GuardStore(t.store),
      cards: new CardStore(t.store),
      gameDays: {
        running: async () => undefined,
        runningBase: async () => undefined,
        allRunning: async () => [],
        showGuards: async () => undefined,
      },
      approvals: {
        post: async (request: ApprovalRequest) => {
          t.posted.push(request);
          return { channel, ts: `1.${t.posted.length}` };
        },
        close: (_at: unknown, closing: ApprovalClosing) => t.closings.push(closing),
      },
      startApproved: (ask: StartAsk, way: ApprovedWay) => startPolicy(t.deps, ask, way),
      planApprovals: {
        approved: (ref: StepRef) => approvedStepStarts(t.deps, ref),
        closed: (ref: StepRef, closing: ApprovalClosing) => stepApprovalClosed(t.deps, ref, closing),
      },
      events: {
        record: async (event: Seen & { card?: object }) => {
          t.events.push(event);
          return event.kind === 'started' ? { ...event.card, ts: '2.2', targetWords: '' } : undefined;
        },
      },
    } as unknown as GuardrailParts;
    t.service = new GuardrailService(t.deps);
  });

  t.later = (ms) => {
    offset += ms;
  };
  t.login = async (userId, user = t.sim.seed.users.owner) => {
    const actor = { workspaceId: 'T0GUARDS', userId, userName: userId.toLowerCase(), channelId: channel };
    await t.deps.sessions.save(actor, await t.platform.auth.login({ email: user.email, password: user.password }));
    return actor;
  };
  t.creates = () => t.sim.requests.filter((r) => r.method === 'POST' && r.path === '/attacks/new').length;
  return t;
}
