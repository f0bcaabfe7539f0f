import { z } from 'zod';
import { parseBody, type RequestBody } from './route.ts';
import { haltTimeline, type Timeline } from './stages.ts';
import type { HaltNote, SimState } from './state.ts';

const haltRequestSchema = z.looseObject({ reason: z.string().nullish(), reference: z.string().nullish() }).optional();

/** The optional HaltRequest body, as the note kept on each attack it halts. */
export function haltNoteOf(body: RequestBody, by: string): HaltNote {
  const request = parseBody(haltRequestSchema, body.json());
  return {
    by,
    ...(request?.reason ? { reason: request.reason } : {}),
    ...(request?.reference ? { reference: request.reference } : {}),
  };
}

interface Haltable {
  timeline: Timeline;
  targets: string[];
  halt?: HaltNote;
}

/**
 * Halts those still active, and the targets of halting ones that an earlier halt missed; returns
 * them. Attacks already halting or finished are otherwise untouched. Targets in `deaf` (client
 * ids) do not take the halt.
 */
export function haltAll<T extends Haltable>(
  attacks: Iterable<T>,
  note: HaltNote,
  now: number,
  stageMs: number,
  deaf: ReadonlySet<string> = new Set(),
): T[] {
  const halted: T[] = [];
  for (const attack of attacks) {
    const missed = attack.targets.flatMap((client, index) => (deaf.has(client) ? [index] : []));
    const first = attack.timeline.haltedAt === undefined;
    if (!haltTimeline(attack.timeline, now, stageMs, missed)) continue;
    if (first) attack.halt = note;
    halted.push(attack);
  }
  return halted;
}

export function attacksOfCompany(state: SimState, companyId: string) {
  return state.teamsOfCompany(companyId).flatMap((team) => state.attacksOf(team.id));
}

export function kubernetesAttacksOfCompany(state: SimState, companyId: string) {
  return state.teamsOfCompany(companyId).flatMap((team) => state.kubernetesAttacksOf(team.id));
}
