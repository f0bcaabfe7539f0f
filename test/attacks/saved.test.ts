import { describe, expect, it } from 'vitest';
import { builtInCatalogue } from '../../src/client/catalogue.ts';
import { savedWords } from '../../src/attacks/saved.ts';
import { parseAttackCommand } from '../../src/commands/attack/parse.ts';
import { parseSavedRef, savedRefValue } from '../../src/views/savedAttacks.ts';

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
  it('name a team and a saved name, and nothing a forged value may put there', () => {
    expect(parseSavedRef(savedRefValue({ teamId: 'team-1', name: 'web-cpu' }))).toEqual({
      teamId: 'team-1',
      name: 'web-cpu',
    });
    for (const forged of ['', 'x', '{}', '{"t":"../x","n":"a"}', '{"t":"team-1","n":"<!channel>"}', '{"t":"team-1"}'])
      expect(parseSavedRef(forged)).toBeUndefined();
  });
});
