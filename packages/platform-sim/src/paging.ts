import { badRequest, queryValue, type Query } from './route.ts';

export const defaultPageSize = 1000;
const maxInt32 = 2 ** 31 - 1;

interface Sequenced {
  seq: number;
}

export interface Page<T> {
  items: T[];
  /** Present only when more items follow. */
  nextToken?: string;
}

/** `pageSize` from the query: a positive int32, or the default. */
export function pageSizeOf(query: Query, fallback: number | undefined): number | undefined {
  const raw = queryValue(query, 'pageSize');
  if (raw === undefined || raw === '') return fallback;
  const size = Number(raw);
  if (!/^\d+$/.test(raw) || size < 1 || size > maxInt32) throw badRequest('pageSize must be a positive integer');
  return size;
}

/** `pageToken` (or its synonym `page_token`) from the query. */
export function pageTokenOf(query: Query): string | undefined {
  return queryValue(query, 'pageToken') || queryValue(query, 'page_token') || undefined;
}

/**
 * One page of `items` (oldest first), newest first, keeping those `keep` accepts. The token is a
 * cursor on the creation order rather than an offset, so attacks that finish between two calls
 * neither shift nor repeat entries on the following pages.
 */
export function pageNewestFirst<T extends Sequenced>(
  items: readonly T[],
  keep: (item: T) => boolean,
  pageSize: number,
  token?: string,
): Page<T> {
  let index = token === undefined ? items.length - 1 : indexBefore(items, decodeToken(token));
  const page: T[] = [];
  for (; index >= 0 && page.length < pageSize; index--) {
    const item = items[index];
    if (item && keep(item)) page.push(item);
  }
  const last = page.at(-1);
  for (; index >= 0 && last; index--) {
    const item = items[index];
    if (item && keep(item)) return { items: page, nextToken: encodeToken(last.seq) };
  }
  return { items: page };
}

/** The first `limit` kept items, newest first (the unpaged list endpoints). */
export function listNewestFirst<T extends Sequenced>(
  items: readonly T[],
  keep: (item: T) => boolean,
  limit?: number,
): T[] {
  return pageNewestFirst(items, keep, limit ?? Number.POSITIVE_INFINITY).items;
}

/** The paged-response wrapper of platform-contract.md. */
export function pagedResponse<T, R>(page: Page<T>, pageSize: number, render: (item: T) => R) {
  return { items: page.items.map(render), pageSize, ...(page.nextToken ? { pageToken: page.nextToken } : {}) };
}

function encodeToken(seq: number): string {
  return Buffer.from(`after:${seq}`).toString('base64url');
}

function decodeToken(token: string): number {
  const match = /^after:(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  if (!match) throw badRequest('pageToken is not a token this service issued');
  return Number(match[1]);
}

/** Index of the last item created before `seq` (items are in ascending `seq`). */
function indexBefore(items: readonly Sequenced[], seq: number): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((items[middle]?.seq ?? Infinity) < seq) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}
