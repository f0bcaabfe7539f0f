import { describe, expect, it } from 'vitest';
import { blastRadiusText } from '../../src/views/attacks/blastRadius.ts';

const hosts = (count: number) => Array.from({ length: count }, (_, i) => `web-${String(i + 1).padStart(2, '0')}`);

describe('the blast radius in words', () => {
  it('names the first ten matches and counts the rest', () => {
    const text = blastRadiusText({ kind: 'Host', matches: hosts(12), hits: 12, outOf: 40 }, 'Platform');
    expect(text).toContain('*Blast radius: 12 of 40 hosts*');
    expect(text).toContain('web-10 and 2 more');
    expect(text).not.toContain('web-11');
  });

  it('says how many a random count picks among the matches', () => {
    const text = blastRadiusText({ kind: 'Container', matches: hosts(5), hits: 2, outOf: 9, count: 2 }, 'Platform');
    expect(text).toContain('*Blast radius: 5 of 9 containers* The platform picks 2 of them at random.');
  });

  it('escapes names a platform gave', () => {
    const text = blastRadiusText({ kind: 'Host', matches: ['<!here>'], hits: 1, outOf: 3 }, 'Platform');
    expect(text).not.toContain('<!here>');
  });
});
