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
