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

/** How the agents of the clients (by id) take halts (`/_control`). */
export interface Agents {
  /** Clients that do not take halts. */
  deafTargets: ReadonlySet<string>;
  /** Clients that stop this many milliseconds late. */
  stopDelays: ReadonlyMap<string, number>;
}

const everyAgentTakesHalts: Agents = { deafTargets: new Set(), stopDelays: new Map() };

/**
 * Halts those still active, and the targets of halting ones that an earlier halt missed; returns
 * them. Attacks already halting or finished are otherwise untouched. Deaf targets do not take the
 * halt; delayed ones stop late.
 */
export function haltAll<T extends Haltable>(
  attacks: Iterable<T>,
  note: HaltNote,
  now: number,
  stageMs: number,
  agents: Agents = everyAgentTakesHalts,
): T[] {
  const halted: T[] = [];
  for (const attack of attacks) {
    const deaf = attack.targets.flatMap((client, index) => (agents.deafTargets.has(client) ? [index] : []));
    const stopDelays = new Map(
      attack.targets.flatMap((client, index) => {
        const delay = agents.stopDelays.get(client);
        return delay ? [[index, delay] as const] : [];
      }),
    );
    const first = attack.timeline.haltedAt === undefined;
    if (!haltTimeline(attack.timeline, now, stageMs, { deaf, stopDelays })) continue;
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
