import { z } from 'zod';
import type { CallContext, Request } from './request.ts';
import {
  type Attack,
  type AttackForServiceResponse,
  attackForServiceListSchema,
  attackListSchema,
  attackSchema,
  createdIdSchema,
  type Execution,
  executionSchema,
  haltAnswerSchema,
  pagedSchema,
} from './schemas.ts';

/** One page of a paged list; `nextPageToken` is absent on the last page. */
export interface Page<T> {
  items: T[];
  nextPageToken?: string;
}

interface PagedBody<T> {
  items: T[];
  pageSize?: number | null | undefined;
  pageToken?: string | null | undefined;
  page_token?: string | null | undefined;
}

/**
 * The contract's end-of-list rule: no token, or fewer items than the page size (the platform's,
 * else the one asked for). An empty page also ends the list, so a platform that keeps handing out
 * tokens cannot make a caller loop for ever.
 */
export function toPage<T>(body: PagedBody<T>, requestedPageSize?: number): Page<T> {
  const token = body.pageToken ?? body.page_token ?? undefined;
  const pageSize = body.pageSize ?? requestedPageSize;
  const last = !token || body.items.length === 0 || (pageSize !== undefined && body.items.length < pageSize);
  return last ? { items: body.items } : { items: body.items, nextPageToken: token };
}

/** Yields items page after page, fetching a page only when the previous one has been consumed. */
export async function* followPages<T>(
  fetchPage: (pageToken: string | undefined) => Promise<Page<T>>,
): AsyncGenerator<T, void, undefined> {
  let token: string | undefined;
  do {
    const page = await fetchPage(token);
    yield* page.items;
    // A token handed back unchanged would fetch the same page for ever.
    token = page.nextPageToken === token ? undefined : page.nextPageToken;
  } while (token !== undefined);
}

/**
 * Collects at most `limit` items and stops there, so that no page beyond them is fetched.
 * Paged lists have no "collect everything": a team may have tens of thousands of attacks.
 */
export async function take<T>(items: AsyncIterable<T>, limit: number): Promise<T[]> {
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError('limit must be a non-negative integer');
  const collected: T[] = [];
  if (limit === 0) return collected;
  for await (const item of items) {
    collected.push(item);
    if (collected.length >= limit) break;
  }
  return collected;
}

// Request bodies (ours, so plain types: the platform validates them).

/** Legacy `POST /attacks/new` payload (platform-api.md, Resources). */
export interface CreateAttackInput {
  command: { type: string; args?: string[] };
  target: {
    type: 'Random' | 'Exact';
    tags?: Record<string, string>;
    /** Host names with `Exact`, or how many containers to pick with `Random`. */
    exact?: string[] | number;
    hosts?: { ids: string[] };
    containers?: { ids?: string[]; labels?: Record<string, string> };
  };
  labels?: Record<string, string>;
}

export type InfraCommandType =
  | 'CPU'
  | 'Memory'
  | 'IO'
  | 'Disk'
  | 'Blackhole'
  | 'DNS'
  | 'Latency'
  | 'Packet_Loss'
  | 'Shutdown'
  | 'Time_Travel'
  | 'Process_Killer'
  | 'Process_Exhaustion'
  | 'Collect_Certs';

/** `POST /attacks` payload for attacks on a service. */
export interface CreateAttackRequest {
  attackConfiguration: {
    command: { infraCommandType: InfraCommandType; infraCommandArgs: { cliArgs: string[] } };
    targets: { serviceId: string; targetingStrategy: { type: string } }[];
    sampling?: { type: string; percent?: number; count?: number };
  };
  includeNewTargets?: boolean;
}

export interface HaltRequest {
  reason?: string;
  reference?: string;
}

export interface AttackListQuery {
  source?: 'Adhoc' | 'Scenario' | undefined;
  pageSize?: number | undefined;
}

export interface PageQuery {
  pageSize?: number | undefined;
  pageToken?: string | undefined;
}

export interface RangeQuery extends PageQuery {
  startTime?: Date | string | undefined;
  endTime?: Date | string | undefined;
}

export interface HaltOptions {
  /** The contract makes the DELETE and POST forms equivalent; POST carries a reason. */
  method?: 'DELETE' | 'POST';
}

export interface AttacksApi {
  listActive(query?: AttackListQuery): Promise<Attack[]>;
  listCompleted(query?: AttackListQuery): Promise<Attack[]>;
  activePage(query?: PageQuery): Promise<Page<Attack>>;
  completedPage(query?: PageQuery): Promise<Page<Attack>>;
  /** Active attacks, fetched a page at a time as they are consumed. */
  iterateActive(query?: Omit<PageQuery, 'pageToken'>): AsyncIterable<Attack>;
  /** Attacks between two times; without times, all attacks up to now. */
  iterateRange(query?: Omit<RangeQuery, 'pageToken'>): AsyncIterable<Attack>;
  get(guid: string): Promise<Attack>;
  /** Starts an attack (legacy `POST /attacks/new`) and returns its guid. Never retried. */
  create(input: CreateAttackInput): Promise<string>;
  /** Starts attacks on a service (`POST /attacks`). Never retried. */
  createForService(request: CreateAttackRequest): Promise<AttackForServiceResponse[]>;
  annotate(guid: string, annotations: Record<string, string>): Promise<Attack>;
  /**
   * Halts one attack; halting a finished attack succeeds and changes nothing. Answers the attacks
   * this halt stopped (none when the attack was already halting or had ended), or undefined when
   * the platform answered without a body.
   */
  halt(guid: string, request?: HaltRequest, options?: HaltOptions): Promise<Attack[] | undefined>;
  /** Halts every active attack the session can reach (company level, no teamId). */
  haltAll(request?: HaltRequest, options?: HaltOptions): Promise<Attack[]>;
  /** `POST /halts`: every active impact across the platform. */
  haltEverything(request?: HaltRequest): Promise<void>;
  /** One execution per target of the attack. */
  executions(guid: string): Promise<Execution[]>;
}

const attackPageSchema = pagedSchema(attackSchema);

function timestamp(value: Date | string | undefined): string | undefined {
  return value instanceof Date ? value.toISOString() : value;
}

export function attacksApi(request: Request, session: CallContext): AttacksApi {
  const team = { session, teamScoped: true } as const;
  const company = { session, teamScoped: false } as const;

  const listAt =
    (path: string) =>
    (query: AttackListQuery = {}) =>
      request({
        ...team,
        method: 'GET',
        path,
        query: { source: query.source, pageSize: query.pageSize },
        schema: z.array(attackSchema),
      });

  const pageAt =
    (path: string, extra: (query: RangeQuery) => Record<string, string | undefined> = () => ({})) =>
    async (query: RangeQuery = {}): Promise<Page<Attack>> => {
      const body = await request({
        ...team,
        method: 'GET',
        path,
        query: { ...extra(query), pageSize: query.pageSize, pageToken: query.pageToken },
        schema: attackPageSchema,
      });
      return toPage(body, query.pageSize);
    };

  const activePage = pageAt('/attacks/active/paged');
  const completedPage = pageAt('/attacks/completed/paged');
  const rangePage = pageAt('/attacks/range', (query) => ({
    startTime: timestamp(query.startTime),
    endTime: timestamp(query.endTime),
  }));

  return {
    listActive: listAt('/attacks/active'),
    listCompleted: listAt('/attacks/completed'),
    activePage,
    completedPage,
    iterateActive: (query = {}) => followPages((pageToken) => activePage({ ...query, pageToken })),
    iterateRange: (query = {}) => followPages((pageToken) => rangePage({ ...query, pageToken })),
    get: (guid) => request({ ...team, method: 'GET', path: '/attacks/{guid}', params: { guid }, schema: attackSchema }),
    create: (input) => request({ ...team, method: 'POST', path: '/attacks/new', json: input, schema: createdIdSchema }),
    createForService: (body) =>
      request({ ...team, method: 'POST', path: '/attacks', json: body, schema: attackForServiceListSchema }),
    annotate: (guid, annotations) =>
      request({
        ...team,
        method: 'PUT',
        path: '/attacks/{guid}/annotations',
        params: { guid },
        json: { annotations },
        schema: attackSchema,
      }),
    halt: (guid, body, options = {}) =>
      options.method === 'DELETE'
        ? request({
            ...team,
            method: 'DELETE',
            path: '/attacks/{guid}',
            params: { guid },
            urgent: true,
            schema: haltAnswerSchema,
          })
        : request({
            ...team,
            method: 'POST',
            path: '/attacks/{guid}/halt',
            urgent: true,
            params: { guid },
            json: body ?? {},
            idempotent: true,
            schema: haltAnswerSchema,
          }),
    haltAll: (body, options = {}) =>
      options.method === 'DELETE'
        ? request({ ...company, method: 'DELETE', path: '/attacks', urgent: true, schema: attackListSchema })
        : request({
            ...company,
            method: 'POST',
            path: '/attacks/halt',
            urgent: true,
            json: body ?? {},
            idempotent: true,
            schema: attackListSchema,
          }),
    async haltEverything(body) {
      await request({
        ...company,
        method: 'POST',
        path: '/halts',
        urgent: true,
        json: body ?? {},
        idempotent: true,
        schema: z.unknown(),
      });
    },
    executions: (guid) =>
      request({
        ...team,
        method: 'GET',
        path: '/executions',
        query: { taskId: guid },
        schema: z.array(executionSchema),
      }),
  };
}
