/**
 * Where attacks may start, decided by the attack service itself: every preview, start and Start
 * click checks the channel (ATTACK_CHANNELS, then whether Slack lets the card be posted there)
 * before the start policy is asked anything, whichever way in asked.
 */
import { keys } from '../../src/store/keys.ts';
import { beforeEach, describe, expect, it } from 'vitest';
import { UserInputError } from '../../src/errors.ts';
import { type AskFrom, type AttackParts, AttackService } from '../../src/attacks/service.ts';
import type { TeamEntry } from '../../src/client/index.ts';
import { parseAttackCommand } from '../../src/commands/attacks/parse.ts';
import { builtInCatalogue } from '../../src/client/catalogue.ts';
import { createLogger } from '../../src/logger.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import type { Login } from '../../src/store/sessions.ts';

const allowed = 'C0ATTACKS';
const private_ = 'G0NOTIN';
const actor = { workspaceId: 'T1', userId: 'U1', userName: 'ana', channelId: allowed };
const team = { identifier: 'team-1', name: 'Platform', privileges: ['EXPERIMENTS_RUN'] } as unknown as TeamEntry;
const login = { session: { identifier: 'p-1', teams: [team], privileges: [] }, team } as unknown as Login;
const request = parseAttackCommand('cpu -l 30', builtInCatalogue, {
  maxAttackSeconds: 600,
  monitoring: { integrationA: undefined, domainA: undefined, uriB: undefined },
});

let store: KeyValueStore;
/** The channels Slack was asked about, and whether the start policy was reached (its freeze check). */
let asked: string[];
let policyReached: number;
let attacks: AttackService;

/** The policy's first check stands for the whole policy: reaching it means the channel passed. */
class PolicyReached extends Error {}

beforeEach(async () => {
  await store?.close();
  store = createKeyValueStore('memory://');
  asked = [];
  policyReached = 0;
  const parts = {
    store,
    logger: createLogger('silent'),
    clock: { now: Date.now },
    config: { attackChannels: [allowed, private_] },
    channels: {
      cardProblem: async (channel: string) => {
        asked.push(channel);
        return channel === private_ ? 'Faultline is not in this private channel.' : undefined;
      },
    },
    freezes: {
      covering: async () => {
        policyReached++;
        throw new PolicyReached();
      },
    },
    sessions: { get: async () => login },
  } as unknown as AttackParts;
  attacks = new AttackService(parts);
});

const ask = (channel: string | undefined): AskFrom => ({ actor, login, team, request, channel });

describe('where an attack may start, as the attack service decides it', () => {
  it.each([
    ['a start', (a: AskFrom) => attacks.start(a, { kind: 'command' })],
    [
      'a workflow step',
      (a: AskFrom) => attacks.start(a, { kind: 'workflow step', step: { executionId: 'E1', waitForEnd: false } }),
    ],
    ['a preview', (a: AskFrom) => attacks.preview(a)],
  ])('%s outside ATTACK_CHANNELS is refused before the policy or Slack is asked', async (_, run) => {
    const refused = await run(ask('C0RANDOM')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UserInputError);
    expect((refused as Error).message).toBe(
      `Attacks cannot be started in this channel. Use <#${allowed}>, <#${private_}>.`,
    );
    expect(asked).toEqual([]);
    expect(policyReached).toBe(0);
  });

  it('refuses a start asked from no channel, and one whose card Slack would not take', async () => {
    await expect(attacks.start(ask(undefined), { kind: 'command' })).rejects.toThrow('Start attacks from a channel');
    await expect(attacks.preview(ask(private_))).rejects.toThrow('Faultline is not in this private channel.');
    expect(asked).toEqual([private_]);
    expect(policyReached).toBe(0);
  });

  it('lets a start in an allowed channel on to the start policy', async () => {
    await expect(attacks.start(ask(allowed), { kind: 'command' })).rejects.toBeInstanceOf(PolicyReached);
    await expect(attacks.preview(ask(allowed))).rejects.toBeInstanceOf(PolicyReached);
    expect(asked).toEqual([allowed, allowed]);
    expect(policyReached).toBe(2);
  });

  it('checks the channel again when Start is clicked on a preview', async () => {
    const pending = { id: 'P0PRIVATE', actor, teamId: team.identifier, request, channel: private_ };
    await store.set(keys.pending.key(pending.id), pending, keys.pending.ttlMs);
    await expect(attacks.startPreviewed(pending.id, actor)).rejects.toThrow('not in this private channel');
    expect(policyReached).toBe(0);
  });

  it('tells a way in which channels to use instead, without asking Slack', () => {
    expect(attacks.otherChannels(allowed)).toBeUndefined();
    expect(attacks.otherChannels('C0RANDOM')).toEqual([allowed, private_]);
    expect(asked).toEqual([]);
  });
});
