import { describe, expect, it } from 'vitest';
import { builtInCatalogue } from '../../src/client/catalogue.ts';
import { deleteSaved, SavedAttacks, savedForRun, savedWords } from '../../src/attacks/saved.ts';
import { createLogger } from '../../src/logger.ts';
import type { TeamEntry } from '../../src/client/index.ts';
import type { Login } from '../../src/store/sessions.ts';
import { createKeyValueStore } from '../../src/store/keyValue.ts';
import { keys } from '../../src/store/keys.ts';
import { parseAttackCommand } from '../../src/commands/attacks/parse.ts';
import { parseSavedRef, savedRefValue } from '../../src/views/attacks/savedAttacks.ts';

const options = {
  maxAttackSeconds: 3600,
  monitoring: { integrationA: 'acme-metrics', domainA: undefined, uriB: 'https://alerts.example' },
};

describe('the words a saved attack keeps', () => {
  it.each([
    'cpu -l 60 -c 1 --target-tags role=web,zone=a --target-count 2',
    'latency -l 120 -m 300 --target-hosts platform-web-1,platform-web-2',
    'memory -l 30 -p 50 --target-labels app=checkout',
    'cpu -l 60 --target-service svc-1 --sample-percent 20 --include-new-targets',
    'cpu -l 60 --k8s-target acme/checkout/Deployment/checkout --k8s-count 1',
    'cpu --target-containers c1 --guard a:1234567 --guard b:CheckoutErrorRate',
  ])('give back the same attack when read again: %s', (typed) => {
    const first = parseAttackCommand(`${typed} --team Platform --yes`, builtInCatalogue, options);
    const again = parseAttackCommand(savedWords(first), builtInCatalogue, options);
    expect(again).toEqual({ ...first, team: undefined, yes: false });
    expect(savedWords(first)).not.toContain('--yes');
    expect(savedWords(first)).not.toContain('--team');
  });
});

describe('the Run and Delete buttons of a saved attack', () => {
  it('name a team, a saved name and the version shown, and nothing a forged value may put there', () => {
    expect(parseSavedRef(savedRefValue({ teamId: 'team-1', name: 'web-cpu' }))).toEqual({
      teamId: 'team-1',
      name: 'web-cpu',
    });
    expect(parseSavedRef(savedRefValue({ teamId: 'team-1', name: 'web-cpu', version: 3 }))).toEqual({
      teamId: 'team-1',
      name: 'web-cpu',
      version: 3,
    });
    for (const forged of [
      '',
      'x',
      '{}',
      '{"t":"../x","n":"a"}',
      '{"t":"team-1","n":"<!channel>"}',
      '{"t":"team-1"}',
      '{"t":"team-1","n":"a","v":"2"}',
      '{"t":"team-1","n":"a","v":-1}',
      '{"t":"team-1","n":"a","v":1.5}',
    ])
      expect(parseSavedRef(forged)).toBeUndefined();
  });
});

describe('the versions of a saved attack', () => {
  const request = (seconds: number) => ({
    type: 'cpu',
    args: ['-l', String(seconds)],
    target: { kind: 'all' as const },
    team: undefined,
    yes: false,
    lengthSeconds: seconds,
  });
  const ann = { workspaceId: 'T1', userId: 'U1', userName: 'ann' };
  const bob = { workspaceId: 'T1', userId: 'U2', userName: 'bob' };

  it('count on per team and name, past a delete, and keep who saved and changed each and when', async () => {
    const store = createKeyValueStore('memory://');
    let now = Date.parse('2031-05-01T10:00:00Z');
    const saved = new SavedAttacks(store, () => now);
    const first = await saved.save('team-1', 'web-cpu', request(60), ann);
    expect(first).toEqual({ outcome: 'saved', saved: expect.objectContaining({ version: 1 }) });
    expect(await saved.save('team-2', 'WEB-CPU', request(60), ann)).toEqual(
      expect.objectContaining({ saved: expect.objectContaining({ version: 1 }) }),
    );
    expect(await saved.delete('team-1', 'Web-Cpu')).toEqual({ outcome: 'deleted', deleted: expect.anything() });
    now += 60_000;
    const again = await saved.save('team-1', 'web-cpu', request(3600), bob);
    expect(again).toEqual({
      outcome: 'saved',
      saved: expect.objectContaining({
        version: 2,
        savedBy: bob,
        savedAt: '2031-05-01T10:01:00.000Z',
        changedBy: bob,
        changedAt: '2031-05-01T10:01:00.000Z',
      }),
    });
    expect((await saved.get('team-1', 'web-cpu'))?.version).toBe(2);
    await store.close();
  });

  it('read one kept before versions as version 0, and a save after its delete is never version 1', async () => {
    const store = createKeyValueStore('memory://');
    const saved = new SavedAttacks(store, () => 0);
    await store.set(keys.savedAttack.key('team-1', 'old'), {
      name: 'old',
      teamId: 'team-1',
      words: ['cpu', '-l', '30'],
      savedBy: ann,
      savedAt: '2030-01-01T00:00:00.000Z',
    });
    expect(await saved.get('team-1', 'old')).toEqual(
      expect.objectContaining({ version: 0, changedBy: ann, changedAt: '2030-01-01T00:00:00.000Z' }),
    );
    await saved.delete('team-1', 'old');
    const again = await saved.save('team-1', 'old', request(30), bob);
    expect(again).toEqual(expect.objectContaining({ saved: expect.objectContaining({ version: 2 }) }));
    await store.close();
  });

  it('remember per person the last version they saw', async () => {
    const store = createKeyValueStore('memory://');
    const saved = new SavedAttacks(store, () => 0);
    expect(await saved.seenVersion('team-1', 'web-cpu', ann)).toBeUndefined();
    await saved.markSeen('team-1', 'Web-CPU', ann, 3);
    expect(await saved.seenVersion('team-1', 'web-cpu', ann)).toBe(3);
    expect(await saved.seenVersion('team-1', 'web-cpu', bob)).toBeUndefined();
    await store.close();
  });

  it('let an unattended run take only a version its person has seen, a list or step only the version it showed', async () => {
    const store = createKeyValueStore('memory://');
    const saved = new SavedAttacks(store, () => 0);
    const deps = { saved };
    await saved.save('team-1', 'web-cpu', request(60), ann);
    const unattended = (by: typeof ann) => ({ kind: 'unattended' as const, by });
    // Version 1 nobody changed: anyone's to run.
    expect(await savedForRun(deps, 'team-1', 'web-cpu', unattended(bob))).toMatchObject({ changed: undefined });
    await saved.delete('team-1', 'web-cpu');
    await saved.save('team-1', 'web-cpu', request(3600), ann);
    expect(await savedForRun(deps, 'team-1', 'web-cpu', unattended(ann))).toMatchObject({ changed: undefined });
    expect(await savedForRun(deps, 'team-1', 'web-cpu', unattended(bob))).toMatchObject({
      changed: { kind: 'unseen' },
    });
    expect(await savedForRun(deps, 'team-1', 'web-cpu', { kind: 'preview' })).toMatchObject({ changed: undefined });
    await saved.markSeen('team-1', 'web-cpu', bob, 2);
    expect(await savedForRun(deps, 'team-1', 'web-cpu', unattended(bob))).toMatchObject({ changed: undefined });
    expect(await savedForRun(deps, 'team-1', 'web-cpu', { kind: 'shown', version: 1 })).toMatchObject({
      changed: { kind: 'list' },
    });
    const planned = { kind: 'planned' as const, version: 1, words: [], position: 3 };
    expect(await savedForRun(deps, 'team-1', 'web-cpu', planned)).toMatchObject({
      changed: { kind: 'step', position: 3 },
    });
    expect(await savedForRun(deps, 'team-1', 'WEB-CPU', { ...planned, version: 2 })).toMatchObject({
      changed: undefined,
    });
    expect(await savedForRun(deps, 'team-1', 'web-cp', { kind: 'preview' })).toEqual({ missing: ['web-cpu'] });
    await store.close();
  });

  it('are deleted only by someone with the run privilege on the team, with an audit line', async () => {
    const store = createKeyValueStore('memory://');
    const saved = new SavedAttacks(store, () => 0);
    const lines: unknown[] = [];
    const logger = createLogger('silent');
    logger.info = ((line: unknown) => lines.push(line)) as typeof logger.info;
    const team = (privileges: string[]) =>
      ({ identifier: 'team-1', name: 'Platform', privileges }) as unknown as TeamEntry;
    const loginWith = (privileges: string[]) =>
      ({ session: { identifier: 'p-1', teams: [team(privileges)] }, team: team(privileges) }) as unknown as Login;
    const actor = { ...ann, channelId: 'C1' };
    await saved.save('team-1', 'web-cpu', request(60), ann);
    const reader = loginWith(['EXPERIMENTS_READ']);
    expect(await deleteSaved({ saved, logger }, actor, reader, team([]), 'web-cpu')).toBe('not allowed');
    expect(await saved.get('team-1', 'web-cpu')).toBeDefined();
    const runner = loginWith(['EXPERIMENTS_RUN']);
    expect(await deleteSaved({ saved, logger }, actor, runner, team(['EXPERIMENTS_RUN']), 'web-cpu')).toBe('deleted');
    expect(await deleteSaved({ saved, logger }, actor, runner, team(['EXPERIMENTS_RUN']), 'web-cpu')).toBe('missing');
    expect(lines).toEqual([expect.objectContaining({ audit: 'saved_attack_deleted', saved: 'web-cpu', version: 1 })]);
    await store.close();
  });
});
