import { startSimulator, type Simulator } from '@faultline/platform-sim';
import type { InputBlock, PlainTextInput } from '@slack/types';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInCatalogue } from '../../src/client/catalogue.ts';
import { parseAttackCommand } from '../../src/commands/attacks/parse.ts';
import { parseCommandText, subcommands } from '../../src/commands/index.ts';
import { ATTACK_TARGET_KIND, ATTACK_TARGET_VALUES } from '../../src/views/attacks/builderFields.ts';
import { attackBuilderModal } from '../../src/views/attacks/attackBuilder.ts';

/**
 * The examples `/chaos help` shows, and the builder's placeholders, name clients the demo has:
 * someone who copies one into the local demo gets an attack that runs, not "Target Not Found".
 */

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator();
});

afterAll(async () => {
  await sim?.stop();
});

const flagsOf = (text: string) =>
  new Map([...text.matchAll(/(--[a-z-]+)\s+(\S+)/g)].map((flag) => [flag[1]!, flag[2]!]));
const ids = (list: string) =>
  list
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);

/** The teams an example may mean: the one its --team names, else any team of the demo login. */
function teamsFor(flags: Map<string, string>): string[] {
  const named = flags.get('--team');
  if (named) return [...sim.state.teams.values()].filter((team) => team.name === named).map((team) => team.id);
  return [...sim.state.users.get(sim.seed.users.owner.id)!.teamRoles.keys()];
}

function hasClients(teamId: string, kind: 'hosts' | 'containers', wanted: string[]): boolean {
  const known = kind === 'hosts' ? sim.state.hostsOf(teamId) : sim.state.containersOf(teamId);
  return wanted.every((id) => known.some((client) => client.id === id));
}

describe('help examples', () => {
  const examples = subcommands.flatMap((sub) => sub.examples.map((example) => ({ example, flags: flagsOf(example) })));

  it('include one with exact hosts', () => {
    expect(examples.some(({ flags }) => flags.has('--target-hosts'))).toBe(true);
  });

  it('name hosts and containers that exist in the team they are for', () => {
    const wrong = examples
      .filter(({ flags }) => flags.has('--target-hosts') || flags.has('--target-containers'))
      .filter(
        ({ flags }) =>
          !teamsFor(flags).some(
            (teamId) =>
              hasClients(teamId, 'hosts', ids(flags.get('--target-hosts') ?? '')) &&
              hasClients(teamId, 'containers', ids(flags.get('--target-containers') ?? '')),
          ),
      )
      .map(({ example }) => example);
    expect(wrong).toEqual([]);
  });
});

/** The Kubernetes objects an example names, each `cluster/namespace/kind/name`, found in the team. */
function hasKubernetesObjects(teamId: string, example: string): boolean {
  const known = sim.state.kubernetesObjectsOf(teamId).map((o) => `${o.clusterId}/${o.namespace}/${o.kind}/${o.name}`);
  return [...example.matchAll(/--k8s-target\s+(\S+)/g)]
    .flatMap((m) => ids(m[1]!))
    .every((path) => known.includes(path));
}

/** The README and the guides it links, where people copy commands from. */
const guides = [
  'README.md',
  ...readdirSync(new URL('../../docs/guides/', import.meta.url)).map((f) => `docs/guides/${f}`),
]
  .map((path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'))
  .join('\n');

/** The attack commands the README and guides show, without the ones that stand for a value (`<service id>`). */
const readmeAttacks = [...guides.matchAll(/\/chaos (attack [^`\n→]+)/g)]
  .map((m) => m[1]!.trim())
  .filter((example) => example !== 'attack' && !example.includes('<'));
const helpAttacks = subcommands
  .find((sub) => sub.name === 'attack')!
  .examples.filter((example) => example !== 'attack');
const monitoring = {
  integrationA: 'acme-metrics',
  domainA: 'app.monitoring-a.example',
  uriB: 'https://alerts.monitoring-b.example',
};

describe('attack examples in the help and the README', () => {
  it('include one on Kubernetes objects in each', () => {
    expect(helpAttacks.some((example) => example.includes('--k8s-target'))).toBe(true);
    expect(readmeAttacks.some((example) => example.includes('--k8s-target'))).toBe(true);
  });

  it('parse, and name hosts, containers and Kubernetes objects that exist in one team', () => {
    const wrong = [...helpAttacks, ...readmeAttacks].filter((example) => {
      try {
        parseAttackCommand(example.slice('attack '.length), builtInCatalogue, { maxAttackSeconds: 3600, monitoring });
      } catch {
        return true;
      }
      const flags = flagsOf(example);
      return !teamsFor(flags).some(
        (teamId) =>
          hasClients(teamId, 'hosts', ids(flags.get('--target-hosts') ?? '')) &&
          hasClients(teamId, 'containers', ids(flags.get('--target-containers') ?? '')) &&
          hasKubernetesObjects(teamId, example),
      );
    });
    expect(readmeAttacks.length).toBeGreaterThan(5);
    expect(wrong).toEqual([]);
  });
});

describe('attack builder placeholders', () => {
  it('for Kubernetes objects name objects of one team of the demo', () => {
    const view = attackBuilderModal({
      catalogue: builtInCatalogue,
      teams: [{ id: 't', name: 'Platform' }],
      currentTeam: 't',
      maxAttackSeconds: 3600,
      values: { [ATTACK_TARGET_KIND]: 'kubernetes' },
    });
    const field = view.blocks.find(
      (block): block is InputBlock => block.type === 'input' && block.block_id === ATTACK_TARGET_VALUES,
    )!;
    const placeholder = (field.element as PlainTextInput).placeholder!.text;
    expect(teamsFor(new Map()).some((teamId) => hasKubernetesObjects(teamId, `--k8s-target ${placeholder}`))).toBe(
      true,
    );
  });

  it.each(['hosts', 'containers'] as const)('for %s name clients of one team of the demo', (kind) => {
    const view = attackBuilderModal({
      catalogue: builtInCatalogue,
      teams: [{ id: 't', name: 'Platform' }],
      currentTeam: 't',
      maxAttackSeconds: 3600,
      values: { [ATTACK_TARGET_KIND]: kind },
    });
    const field = view.blocks.find(
      (block): block is InputBlock => block.type === 'input' && block.block_id === ATTACK_TARGET_VALUES,
    )!;
    const placeholder = (field.element as PlainTextInput).placeholder!.text;
    expect(teamsFor(new Map()).some((teamId) => hasClients(teamId, kind, ids(placeholder)))).toBe(true);
  });
});

/** Every other command the README shows, an attack id standing for `<id>`; usage lines (`[…]`, `|`, `<…>`) are not commands. */
const readmeCommands = [...guides.matchAll(/\/chaos ([^`\n→]+)/g)]
  .map((m) => m[1]!.trim().replaceAll('<id>', '6f1c2d3e-aaaa-bbbb-cccc-1234567890ab'))
  .filter((example) => !example.startsWith('attack') && !/[[|<]/.test(example));
const helpCommands = subcommands.flatMap((sub) => sub.examples);

describe('every example in the help and the README', () => {
  const actor = { workspaceId: 'T0', userId: 'U0', userName: 'u0', channelId: 'C0' };

  it('and every usage line name each flag the subcommand takes', () => {
    const unnamed = subcommands.flatMap((sub) =>
      sub.args.flags.filter((flag) => !sub.usage.includes(flag)).map((flag) => `${sub.name} ${flag}`),
    );
    expect(subcommands.flatMap((sub) => sub.args.flags)).toContain('--reason');
    expect(unnamed).toEqual([]);
  });

  it('is read by its subcommand’s contract without a refusal', () => {
    const refused = [...helpCommands, ...readmeCommands].flatMap((example) => {
      const { name, request } = parseCommandText(example, actor);
      const sub = subcommands.find((s) => s.name === name);
      if (!sub) return [`${example}: no such subcommand`];
      try {
        sub.args.read(request);
        return [];
      } catch (error) {
        return [`${example}: ${(error as Error).message}`];
      }
    });
    expect(readmeCommands.length).toBeGreaterThan(15);
    expect(refused).toEqual([]);
  });
});
