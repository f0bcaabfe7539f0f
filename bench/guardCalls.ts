/**
 * Sorting the platform requests of a poll pass by what they are for, so the guards benchmark can
 * show that guard reads grow with guards and list reads with teams, never either with attacks,
 * and the halts benchmark that verifying halts adds executions reads and nothing else.
 */
import type { RecordedRequest } from '@faultline/platform-sim';

export interface PassCalls {
  /** Monitor and alert reads (`/monitoringA/…`, `/monitoringB/…`). */
  guardReads: number;
  /** Pages of the active-attack list. */
  listPages: number;
  /** `GET /attacks/{guid}` and `GET /kubernetes/attacks/{guid}` of one attack. */
  singleGets: number;
  /** Halts of one attack (`POST …/attacks/{guid}/halt`). */
  halts: number;
  /** Reads of one attack's executions (`GET /executions?taskId=`), as a halt is verified. */
  executionReads: number;
  other: number;
  total: number;
}

const oneAttack = /^(\/kubernetes)?\/attacks\/(?!active(\/|$)|halt$)[^/]+$/;
const oneHalt = /^(\/kubernetes)?\/attacks\/(?!halt$)[^/]+\/halt$/;

/** What a request was for; requests outside the platform API (`path` without `/v1`) are not counted by callers. */
export function callKind(request: Pick<RecordedRequest, 'method' | 'path'>): Exclude<keyof PassCalls, 'total'> {
  const { method, path } = request;
  if (method === 'GET' && /^\/monitoring[AB]\//.test(path)) return 'guardReads';
  if (method === 'GET' && /^(\/kubernetes)?\/attacks\/active(\/paged)?$/.test(path)) return 'listPages';
  if (method === 'GET' && oneAttack.test(path)) return 'singleGets';
  if (method === 'POST' && oneHalt.test(path)) return 'halts';
  if (method === 'GET' && path === '/executions') return 'executionReads';
  return 'other';
}

/** Counts the requests of a pass by kind. */
export function countCalls(requests: readonly Pick<RecordedRequest, 'method' | 'path'>[]): PassCalls {
  const calls: PassCalls = {
    guardReads: 0,
    listPages: 0,
    singleGets: 0,
    halts: 0,
    executionReads: 0,
    other: 0,
    total: 0,
  };
  for (const request of requests) {
    calls[callKind(request)] += 1;
    calls.total += 1;
  }
  return calls;
}

/**
 * How calls grow along one axis, as the ratio of the last row's calls to the first's against
 * the ratio of the axis itself: about 1 means they grow with it, about 0 that they stay flat.
 */
export function growth(rows: readonly { size: number; calls: number }[]): number {
  const first = rows[0];
  const last = rows.at(-1);
  if (!first || !last || last.size === first.size || first.calls === 0) return Number.NaN;
  return Math.log(last.calls / first.calls) / Math.log(last.size / first.size);
}
