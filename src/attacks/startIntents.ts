import { randomUUID } from 'node:crypto';
import type { KeyValueStore } from '../store/keyValue.ts';
import type { CardStore } from './cards.ts';
import type { WaitingWorkflowStep } from '../guardrails/approvals.ts';
import type { Actor } from '../store/sessions.ts';
import type { CardGuard } from './cards.ts';
import type { AttackRequest } from './request.ts';
import { keys } from '../store/keys.ts';
import { holdLease } from '../store/leases.ts';
import type { StepRef } from '../gamedays/plan.ts';
import type { TargetSet } from './blastRadius.ts';

/** What a start's record is kept with. */
type IntentParts = { store: KeyValueStore; cards: CardStore; clock: { now(): number } };

/** What led to a start: the preview whose Start was clicked, a `--yes` command, or an approval. */
export type StartSource =
  | { kind: 'preview'; id: string }
  | { kind: 'command' }
  | { kind: 'approval'; id: string; approver: { userId: string; userName: string } };

/**
 * A start from Slack, written before the platform is asked and kept until its card is saved:
 * who, what, where and from which preview or approval, then when the create was sent and what it
 * answered. A bot that dies in between leaves it behind, and a restarted one finishes it.
 */
export interface StartIntent {
  id: string;
  source: StartSource;
  actor: Actor;
  /** The starter's platform login, which the platform records as the attack's `create_user`. */
  platformUser: string | undefined;
  teamId: string;
  teamName: string;
  request: AttackRequest;
  channel: string;
  writtenAt: string;
  /** Set just before the create is sent: from then on the platform may hold the attack. */
  createSentAt?: string | undefined;
  /** The guards as the checks before the create read them, for the card. */
  guards?: CardGuard[] | undefined;
  /** The create's answer. */
  guid?: string | undefined;
  /** The game-day plan step it runs. */
  step?: StepRef | undefined;
  /** The Workflow Builder step (Run saved attack) it runs, finished with its outcome. */
  workflowStep?: WaitingWorkflowStep | undefined;
  /** The clients its target matched when the start checked it (blastRadius.ts). */
  targets?: TargetSet | undefined;
}

/** What a restarted bot tells the starter of a start it finished. */
export type StartNews =
  | { kind: 'started'; guid: string; carded: boolean }
  /** The bot stopped before it sent the start to the platform: nothing was started. */
  | { kind: 'not sent' }
  /** The platform's list does not tell which attack, if any, the lost create made. */
  | { kind: 'unconfirmed'; candidates: string[] }
  /** The platform could not be asked (the starter is logged out, or no longer in the team). */
  | { kind: 'unchecked' };

/** Where the starter hears it; the words and the Slack call are in src/slack/notices.ts. */
export interface StartNotices {
  tell(intent: StartIntent, news: StartNews): Promise<void>;
}

/** A start under way in this process: it records each step, and ends the intent when done. */
export interface OpenIntent {
  /** The intent as this process last wrote it. */
  current(): StartIntent;
  /** Just before the platform call. */
  sending(guards: CardGuard[]): Promise<void>;
  /** The platform's answer; the attack exists from here on, whatever happens to this process. */
  created(guid: string): Promise<void>;
  /** The start is over (its card saved, or it failed and its starter was told): nothing is left to finish. */
  end(): Promise<void>;
  /** The attack exists but what follows its create failed: the intent stays for recover-starts to finish. */
  leave(): Promise<void>;
}

export async function openIntent(
  deps: IntentParts,
  start: Omit<StartIntent, 'id' | 'writtenAt' | 'createSentAt' | 'guards' | 'guid'>,
): Promise<OpenIntent> {
  let intent: StartIntent = { ...start, id: randomUUID(), writtenAt: new Date(deps.clock.now()).toISOString() };
  const letGo = await holdLease(deps.store, keys.startLease.key(intent.id), keys.startLease.ttlMs);
  try {
    await deps.store.set(keys.startIntent.key(intent.id), intent, keys.startIntent.ttlMs);
    await deps.cards.beginStart(intent.teamId, intent.id);
  } catch (error) {
    await letGo().catch(() => undefined);
    throw error;
  }
  const save = async (changes: Partial<StartIntent>) => {
    intent = { ...intent, ...changes };
    await deps.store.set(keys.startIntent.key(intent.id), intent, keys.startIntent.ttlMs);
  };
  return {
    current: () => intent,
    sending: (guards) => save({ createSentAt: new Date(deps.clock.now()).toISOString(), guards }),
    created: (guid) => save({ guid }),
    async end() {
      try {
        if (intent.workflowStep && intent.guid)
          await deps.store.set(
            keys.stepStarted.key(intent.workflowStep.executionId),
            intent.guid,
            keys.stepStarted.ttlMs,
          );
        await drop(deps, intent);
      } finally {
        await letGo();
      }
    },
    leave: letGo,
  };
}

/** The start is done with: its marker in the team and its intent go. */
export async function drop(deps: IntentParts, intent: StartIntent): Promise<void> {
  await deps.cards.endStart(intent.teamId, intent.id);
  await deps.store.delete(keys.startIntent.key(intent.id));
}
