import { readdirSync, readFileSync } from 'node:fs';
import { startSimulator, type Simulator } from '@faultline/platform-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The example commands of the README and its guides must hit something in the demo: an example
 * whose hosts the simulator does not have ends "Target Not Found · 0 clients" for the first
 * person who tries it.
 */

const guides = new URL('../../../docs/guides/', import.meta.url);
const docs = [
  readFileSync(new URL('../../../README.md', import.meta.url), 'utf8'),
  ...readdirSync(guides)
    .filter((name) => name.endsWith('.md'))
    .map((name) => readFileSync(new URL(name, guides), 'utf8')),
].join('\n');

/** Every `/chaos attack …` line of the README and its guides, with its target flags. */
function attackExamples(): { line: string; flags: Map<string, string> }[] {
  return [...docs.matchAll(/\/chaos attack [^\n`→]*/g)].map((match) => {
    const line = match[0].trim();
    const flags = new Map([...line.matchAll(/(--target-[a-z]+)\s+(\S+)/g)].map((flag) => [flag[1]!, flag[2]!]));
    return { line, flags };
  });
}

const pairs = (text: string) => Object.fromEntries(text.split(',').map((pair) => pair.split('=') as [string, string]));
const hasAll = (actual: Record<string, string>, wanted: Record<string, string>) =>
  Object.entries(wanted).every(([key, value]) => actual[key] === value);

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator();
});

afterAll(async () => {
  await sim?.stop();
});

/** Whether a team has a client every one of the example's target flags matches. */
function teamMatches(teamId: string, flags: Map<string, string>): boolean {
  const hosts = sim.state.hostsOf(teamId);
  const containers = sim.state.containersOf(teamId);
  return [...flags].every(([flag, value]) => {
    switch (flag) {
      case '--target-hosts':
        return value.split(',').every((id) => hosts.some((host) => host.id === id));
      case '--target-containers':
        return value.split(',').every((id) => containers.some((container) => container.id === id));
      case '--target-tags':
        return hosts.some((host) => hasAll(host.tags, pairs(value)));
      case '--target-labels':
        return containers.some((container) => hasAll(container.labels, pairs(value)));
      case '--target-service':
        return sim.state.services.get(value)?.teamId === teamId;
      case '--target-count':
        return Number(value) >= 1;
      default:
        throw new Error(`the README uses ${flag}, which this test does not know`);
    }
  });
}

describe('the attack examples of the README and its guides', () => {
  it('are found', () => {
    const examples = attackExamples();
    expect(examples.length).toBeGreaterThanOrEqual(10);
    expect(examples.some(({ flags }) => flags.has('--target-hosts'))).toBe(true);
  });

  it("each target something in a team the README's demo login can use", () => {
    const owner = sim.state.users.get(sim.seed.users.owner.id)!;
    const teams = [...owner.teamRoles.keys()];
    const missing = attackExamples()
      .filter(({ flags }) => flags.size > 0)
      .filter(({ flags }) => !teams.some((teamId) => teamMatches(teamId, flags)))
      .map(({ line }) => line);
    expect(missing).toEqual([]);
  });
});
