/** Which attacks a list and a show read, as the person's session in the team. */
import { describe, expect, it, vi } from 'vitest';
import { attackListPage, listAttacks, readAttack } from '../../src/attacks/reads.ts';
import { NotFoundError } from '../../src/client/errors.ts';
import type { Attack, KubernetesAttack, PlatformClient, ScopedPlatform } from '../../src/client/index.ts';
import type { Login } from '../../src/store/sessions.ts';

const attack = (guid: string, stage_lifecycle = 'Active') => ({ guid, stage_lifecycle }) as Attack;
const k8s = (guid: string, stage_lifecycle: string) => ({ guid, stage_lifecycle }) as KubernetesAttack;

function platform(calls: { attacks?: object; kubernetes?: object }) {
  return { attacks: calls.attacks ?? {}, kubernetes: calls.kubernetes ?? {} } as unknown as ScopedPlatform;
}

describe('a page of a list', () => {
  it('reads a plain list from the paged endpoint, from the page token it was given', async () => {
    const completedPage = vi.fn(async () => ({ items: [attack('a', 'Complete')], nextPageToken: 'p3' }));
    const page = await attackListPage(platform({ attacks: { completedPage } }), {
      which: 'completed',
      source: undefined,
      k8s: false,
      pageSize: 20,
      pageToken: 'p2',
    });
    expect(completedPage).toHaveBeenCalledWith({ pageSize: 20, pageToken: 'p2' });
    expect(page).toEqual({ attacks: [attack('a', 'Complete')], next: { pageToken: 'p3' } });
  });

  it('reads a --source list whole, with the source, and cuts it into pages here', async () => {
    const listActive = vi.fn(async () => ['a', 'b', 'c', 'd', 'e'].map((guid) => attack(guid)));
    const query = { which: 'active', source: 'Scenario', k8s: false, pageSize: 2 } as const;
    const first = await attackListPage(platform({ attacks: { listActive } }), query);
    expect(listActive).toHaveBeenCalledWith({ source: 'Scenario' });
    expect(first).toEqual({ attacks: [attack('a'), attack('b')], next: { offset: 2 } });
    const last = await attackListPage(platform({ attacks: { listActive } }), { ...query, offset: 4 });
    expect(last).toEqual({ attacks: [attack('e')], next: undefined });
  });

  it('keeps only the Kubernetes attacks of the kind asked for, active or ended, before paging', async () => {
    const list = vi.fn(async () => [
      k8s('k1', 'Complete'),
      k8s('k2', 'Active'),
      k8s('k3', 'Error'),
      k8s('k4', 'Active'),
    ]);
    const query = { which: 'completed', source: undefined, k8s: true, pageSize: 1 } as const;
    const first = await attackListPage(platform({ kubernetes: { list } }), query);
    expect(list).toHaveBeenCalledWith({});
    expect(first).toEqual({ kubernetes: [k8s('k1', 'Complete')], next: { offset: 1 } });
    const active = await attackListPage(platform({ kubernetes: { list } }), { ...query, which: 'active', pageSize: 5 });
    expect(active).toEqual({ kubernetes: [k8s('k2', 'Active'), k8s('k4', 'Active')], next: undefined });
  });
});

describe('one attack', () => {
  it('reads a Kubernetes attack in the shape of an attack when the platform has no such attack', async () => {
    const missing = new NotFoundError({ method: 'GET', path: '/attacks/k1' });
    const api = platform({
      attacks: { get: async () => Promise.reject(missing) },
      kubernetes: {
        get: async () => ({
          guid: 'k1',
          stage: 'Run',
          stage_lifecycle: 'Active',
          impact_definition: { cli_args: ['cpu', '--percent', '50'] },
          target_definition: {
            strategy: { k8s_objects: [{ cluster_id: 'c1', namespace: 'ns', kind: 'Deployment', name: 'web' }] },
          },
          created_at: '2026-01-01T00:00:00Z',
        }),
      },
    });
    expect(await readAttack(api, 'k1')).toEqual(
      expect.objectContaining({
        guid: 'k1',
        target_type: 'Kubernetes',
        args: ['--percent', '50'],
        infra_command: { type: 'cpu', args: ['--percent', '50'] },
        targets: ['c1/ns/Deployment/web'],
      }),
    );
  });

  it('passes on any other failure to read the attack', async () => {
    const down = new Error('platform down');
    const api = platform({ attacks: { get: async () => Promise.reject(down) } });
    await expect(readAttack(api, 'a1')).rejects.toBe(down);
  });
});

describe('the team a list reads', () => {
  const team = (identifier: string) => ({ identifier, name: identifier, privileges: [] });
  const login = {
    session: { header: 'Bearer s', teams: [team('t-own'), team('t-mine')] },
    team: team('t-own'),
  } as unknown as Login;

  async function listedTeam(teamId: string | undefined) {
    const completedPage = async () => ({ items: [], nextPageToken: undefined });
    const as = vi.fn(() => platform({ attacks: { completedPage } }));
    const query = { which: 'completed', source: undefined, k8s: false, pageSize: 20 } as const;
    const page = await listAttacks({ platform: { as } as unknown as PlatformClient }, login, teamId, query);
    expect(as).toHaveBeenCalledWith({ header: 'Bearer s', teamId: page.team.identifier });
    return page.team.identifier;
  }

  it('is the team a Next button names when it is one of the person’s teams', async () => {
    expect(await listedTeam('t-mine')).toBe('t-mine');
  });

  it('is the person’s selected team when none is named, or one that is not theirs', async () => {
    expect(await listedTeam(undefined)).toBe('t-own');
    expect(await listedTeam('t-someone-else')).toBe('t-own');
  });
});
