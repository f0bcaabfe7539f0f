/** A channel's watch of a team, as the attack service sets, renews and ends it, with its audit lines. */
import { beforeEach, describe, expect, it } from 'vitest';
import { removeWatch, setWatch, type Watch, Watches } from '../../src/attacks/watches.ts';
import type { TeamEntry } from '../../src/client/index.ts';
import { createLogger } from '../../src/logger.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import type { Login } from '../../src/store/sessions.ts';

const channel = 'C0WATCH';
const team = { identifier: 'team-1', name: 'Platform', privileges: [] } as unknown as TeamEntry;
const login = { session: { identifier: 'p-1', teams: [team] }, team } as unknown as Login;
const ann = { workspaceId: 'T1', userId: 'U1', userName: 'ann', channelId: channel };
const bob = { ...ann, userId: 'U2', userName: 'bob' };

let store: KeyValueStore;
let deps: Parameters<typeof setWatch>[0];
let now: number;
let audits: unknown[];
let announced: Array<[Watch, boolean]>;
const announce = async (watch: Watch, renewal: boolean) => {
  announced.push([watch, renewal]);
};

beforeEach(async () => {
  await store?.close();
  store = createKeyValueStore('memory://');
  now = Date.parse('2031-05-01T10:00:00Z');
  audits = [];
  announced = [];
  const logger = createLogger('silent');
  logger.info = ((line: unknown) => audits.push(line)) as typeof logger.info;
  deps = { watches: new Watches(store), logger, clock: { now: () => now } };
});

describe('a channel’s watch of a team', () => {
  it('is set once announced, read with the person’s session, with an audit line', async () => {
    const set = await setWatch(deps, ann, login, team, channel, announce);
    const watch = { teamId: 'team-1', teamName: 'Platform', channel, since: '2031-05-01T10:00:00.000Z' };
    expect(set).toEqual({
      watch: expect.objectContaining({ ...watch, by: { workspaceId: 'T1', userId: 'U1', userName: 'ann' } }),
    });
    expect(announced).toEqual([[expect.objectContaining(watch), false]]);
    expect(await deps.watches.get('team-1', channel)).toEqual(expect.objectContaining(watch));
    expect(audits).toEqual([expect.objectContaining({ audit: 'watch_set', team: 'team-1', channel })]);
  });

  it('is not set when it cannot be announced in the channel', async () => {
    const refused = setWatch(deps, ann, login, team, channel, async () => {
      throw new Error('not_in_channel');
    });
    await expect(refused).rejects.toThrow('not_in_channel');
    expect(await deps.watches.get('team-1', channel)).toBeUndefined();
    expect(audits).toEqual([]);
  });

  it('is already there for its own reader; renewed by another, it keeps its start', async () => {
    await setWatch(deps, ann, login, team, channel, announce);
    now += 60_000;
    expect(await setWatch(deps, ann, login, team, channel, announce)).toEqual({ already: expect.anything() });
    const renewed = await setWatch(deps, bob, login, team, channel, announce);
    expect(renewed).toEqual({
      watch: expect.objectContaining({
        since: '2031-05-01T10:00:00.000Z',
        renewedAt: '2031-05-01T10:01:00.000Z',
        by: expect.objectContaining({ userId: 'U2' }),
      }),
    });
    expect(announced.map(([, renewal]) => renewal)).toEqual([false, true]);
    expect(audits).toEqual([
      expect.objectContaining({ audit: 'watch_set' }),
      expect.objectContaining({ audit: 'watch_renewed', slackUser: 'U2' }),
    ]);
  });

  it('ends for anyone in the channel, with an audit line', async () => {
    const set = await setWatch(deps, ann, login, team, channel, announce);
    if (!('watch' in set)) throw new Error('not set');
    await removeWatch(deps, bob, login, set.watch);
    expect(await deps.watches.inChannel(channel)).toEqual([]);
    expect(audits.at(-1)).toEqual(expect.objectContaining({ audit: 'watch_removed', slackUser: 'U2', channel }));
  });
});
