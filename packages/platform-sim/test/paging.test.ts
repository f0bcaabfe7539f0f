import { beforeEach, describe, expect, it } from 'vitest';
import { simulatorForFile } from './support.ts';

interface PagedAnswer {
  items: Array<{ guid: string; stage_lifecycle: string }>;
  pageSize: number;
  pageToken?: string | null;
}

const { sim, api } = await simulatorForFile();
const platform = sim.seed.teams.platform.id;
let owner: string;
beforeEach(async () => {
  owner = await api.companyAuth(sim.seed.users.owner);
});

async function page(path: string, query: Record<string, string> = {}, teamId = platform): Promise<PagedAnswer> {
  const answer = await api.call('GET', path, { auth: owner, teamId, query });
  expect(answer.status).toBe(200);
  return answer.json<PagedAnswer>();
}

/** Follows pageToken to the end; returns every page. */
async function allPages(path: string, query: Record<string, string> = {}, teamId = platform): Promise<PagedAnswer[]> {
  const pages = [await page(path, query, teamId)];
  for (let token = pages[0]?.pageToken; token; token = pages.at(-1)?.pageToken) {
    expect(pages.length).toBeLessThan(100);
    pages.push(await page(path, { ...query, pageToken: token }, teamId));
  }
  return pages;
}

describe('paged attack lists', () => {
  it('pages 2,500 active attacks 1000 at a time, newest first, each exactly once', async () => {
    const guids = sim.addAttacks(platform, 2_500);
    const pages = await allPages('/attacks/active/paged');

    expect(pages.map((each) => each.items.length)).toEqual([1000, 1000, 500]);
    expect(pages.map((each) => each.pageSize)).toEqual([1000, 1000, 1000]);
    expect(pages[2]?.pageToken ?? undefined).toBeUndefined();
    expect(pages.flatMap((each) => each.items.map((attack) => attack.guid))).toEqual(guids.toReversed());
    expect(pages.flatMap((each) => each.items).every((attack) => attack.stage_lifecycle === 'Active')).toBe(true);
  });

  it('issues opaque tokens, accepts page_token as a synonym and refuses tokens it did not issue', async () => {
    const guids = sim.addAttacks(platform, 5);
    const first = await page('/attacks/active/paged', { pageSize: '2' });
    const token = first.pageToken ?? '';
    expect(token).not.toBe('');
    expect(guids.some((guid) => token.includes(guid))).toBe(false);
    expect(token).not.toMatch(/^\d+$/);

    const viaSynonym = await page('/attacks/active/paged', { pageSize: '2', page_token: token });
    expect(viaSynonym.items.map((attack) => attack.guid)).toEqual([guids[2], guids[1]]);

    for (const query of [{ pageToken: 'not-a-token' }, { pageSize: '0' }, { pageSize: 'ten' }] as Array<
      Record<string, string>
    >) {
      const answer = await api.call('GET', '/attacks/active/paged', { auth: owner, teamId: platform, query });
      expect(answer.status).toBe(400);
      expect(answer.text).toMatch(/^Bad request/);
    }
  });

  it('ends without a token when the last page is exactly full', async () => {
    sim.addAttacks(platform, 4);
    const pages = await allPages('/attacks/active/paged', { pageSize: '2' });
    expect(pages.map((each) => each.items.length)).toEqual([2, 2]);
  });

  it('keeps later pages stable when an attack already listed finishes between two calls', async () => {
    const older = [];
    for (let index = 0; index < 4; index++)
      older.push(await api.createAttack(owner, platform, { args: ['-l', '600'] }));
    const shortest = await api.createAttack(owner, platform, { args: ['-l', '1'] });

    const first = await page('/attacks/active/paged', { pageSize: '2' });
    expect(first.items.map((attack) => attack.guid)).toEqual([shortest, older[3]]);
    sim.clock.advance(60_000);
    const second = await page('/attacks/active/paged', { pageSize: '2', pageToken: first.pageToken ?? '' });
    expect(second.items.map((attack) => attack.guid)).toEqual([older[2], older[1]]);
  });

  it('moves finished attacks to the completed pages', async () => {
    const guids = sim.addAttacks(platform, 1_200, { lengthSeconds: 60 });
    sim.clock.advance(120_000);

    const active = await page('/attacks/active/paged');
    expect(active.items).toEqual([]);
    expect(active.pageToken ?? undefined).toBeUndefined();

    const completed = await allPages('/attacks/completed/paged');
    expect(completed.map((each) => each.items.length)).toEqual([1000, 200]);
    expect(new Set(completed.flatMap((each) => each.items.map((attack) => attack.guid)))).toEqual(new Set(guids));
  });

  it('answers the first page of 10,000 attacks', async () => {
    expect(sim.addAttacks(platform, 10_000)).toHaveLength(10_000);
    const first = await page('/attacks/active/paged', { pageSize: '100' });
    expect(first.items).toHaveLength(100);
    expect(first.pageToken).toEqual(expect.any(String));
  });

  it('keeps each team to its own attacks', async () => {
    sim.addAttacks(platform, 3);
    const payments = sim.addAttacks(sim.seed.teams.payments.id, 2);
    const pages = await allPages('/attacks/active/paged', {}, sim.seed.teams.payments.id);
    expect(pages.flatMap((each) => each.items.map((attack) => attack.guid))).toEqual(payments.toReversed());
  });
});
