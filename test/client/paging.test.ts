import { describe, expect, it } from 'vitest';
import { followPages, type Page, take, toPage } from '../../src/client/attacks.ts';

describe('toPage', () => {
  it.each([
    { body: { items: [1, 2], pageSize: 2, pageToken: 't' }, next: 't' },
    { body: { items: [1, 2], pageSize: 2, page_token: 't' }, next: 't' },
    { body: { items: [1, 2], pageSize: 2, pageToken: null }, next: undefined },
    { body: { items: [1, 2], pageSize: 2 }, next: undefined },
    { body: { items: [1], pageSize: 2, pageToken: 't' }, next: undefined },
    { body: { items: [], pageToken: 't' }, next: undefined },
    { body: { items: [1, 2], pageToken: 't' }, next: 't' },
  ])('$body -> next $next', ({ body, next }) => {
    expect(toPage(body).nextPageToken).toBe(next);
  });

  it('uses the requested page size when the platform does not echo one', () => {
    expect(toPage({ items: [1], pageToken: 't' }, 2).nextPageToken).toBeUndefined();
    expect(toPage({ items: [1, 2], pageToken: 't' }, 2).nextPageToken).toBe('t');
  });
});

function pagesOf(pages: Page<number>[]) {
  const asked: (string | undefined)[] = [];
  const fetchPage = async (token: string | undefined) => {
    asked.push(token);
    const page = pages[asked.length - 1];
    if (!page) throw new Error('asked for a page beyond the last');
    return page;
  };
  return { asked, fetchPage };
}

describe('followPages and take', () => {
  const three = [{ items: [1, 2], nextPageToken: 'b' }, { items: [3, 4], nextPageToken: 'c' }, { items: [5] }];

  it('follows tokens to the end', async () => {
    const { asked, fetchPage } = pagesOf(three);
    expect(await take(followPages(fetchPage), 100)).toEqual([1, 2, 3, 4, 5]);
    expect(asked).toEqual([undefined, 'b', 'c']);
  });

  it('fetches nothing until iterated and no page beyond the limit', async () => {
    const { asked, fetchPage } = pagesOf(three);
    const items = followPages(fetchPage);
    expect(asked).toEqual([]);
    expect(await take(items, 2)).toEqual([1, 2]);
    expect(asked).toEqual([undefined]);
  });

  it('stops when a token comes back unchanged', async () => {
    const { asked, fetchPage } = pagesOf([
      { items: [1], nextPageToken: 'same' },
      { items: [2], nextPageToken: 'same' },
    ]);
    expect(await take(followPages(fetchPage), 10)).toEqual([1, 2]);
    expect(asked).toEqual([undefined, 'same']);
  });

  it('needs a sensible limit', async () => {
    const { fetchPage } = pagesOf(three);
    await expect(take(followPages(fetchPage), -1)).rejects.toThrow(RangeError);
    await expect(take(followPages(fetchPage), Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
    expect(await take(followPages(fetchPage), 0)).toEqual([]);
  });
});
