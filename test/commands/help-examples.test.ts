import { startSimulator, type Simulator } from '@faultline/platform-sim';
import type { InputBlock, PlainTextInput } from '@slack/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInCatalogue } from '../../src/client/catalogue.ts';
import { subcommands } from '../../src/commands/index.ts';
import { ATTACK_TARGET_KIND, ATTACK_TARGET_VALUES, attackBuilderModal } from '../../src/views/attackBuilder.ts';

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

const flagsOf = (text: string) => new Map([...text.matchAll(/(--[a-z-]+)\s+(\S+)/g)].map((flag) => [flag[1]!, flag[2]!]));
const ids = (list: string) => list.split(',').map((id) => id.trim()).filter(Boolean);

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
      .filter(({ flags }) => !teamsFor(flags).some((teamId) =>
        hasClients(teamId, 'hosts', ids(flags.get('--target-hosts') ?? '')) && hasClients(teamId, 'containers', ids(flags.get('--target-containers') ?? ''))))
      .map(({ example }) => example);
    expect(wrong).toEqual([]);
  });
});

describe('attack builder placeholders', () => {
  it.each(['hosts', 'containers'] as const)('for %s name clients of one team of the demo', (kind) => {
    const view = attackBuilderModal({ catalogue: builtInCatalogue, teams: [{ id: 't', name: 'Platform' }], currentTeam: 't', maxAttackSeconds: 3600, values: { [ATTACK_TARGET_KIND]: kind } });
    const field = view.blocks.find((block): block is InputBlock => block.type === 'input' && block.block_id === ATTACK_TARGET_VALUES)!;
    const placeholder = (field.element as PlainTextInput).placeholder!.text;
    expect(teamsFor(new Map()).some((teamId) => hasClients(teamId, kind, ids(placeholder)))).toBe(true);
  });
});
