/**
 * Every subcommand's contract, over arbitrary text: it reads the words or refuses them with a
 * UserInputError that carries the usage, never another throw, whatever flags, values and words
 * a person types.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCommandText, subcommands } from '../../src/commands/index.ts';
import { UserInputError } from '../../src/errors.ts';

const actor = { workspaceId: 'T0PROP', userId: 'U0PROP', userName: 'prop', channelId: 'C0PROP' };
const flags = [...new Set(subcommands.flatMap((sub) => sub.args.flags))];

const word = fc.oneof(
  fc.constantFrom(
    ...flags,
    ...flags.map((flag) => `${flag}=`),
    ...flags.map((flag) => `${flag}=x`),
    ...flags.map((flag) => flag.slice(0, -1)),
    'all',
    'everything',
    'start',
    'guard',
    'status',
    'end',
    'report',
    'active',
    'completed',
    '6f1c2d3e-aaaa-bbbb-cccc-1234567890ab',
    'a:1234567',
    '-t',
    '-abc',
    '--',
    '-',
    '-50%',
    '--__proto__=1',
    '--constructor',
    '--no-all',
    '"a b"',
  ),
  fc.string({ maxLength: 12 }),
);
const text = fc.tuple(fc.constantFrom(...subcommands.map((sub) => sub.name)), fc.array(word, { maxLength: 8 }));

describe('every contract, for any words', () => {
  it('reads them, or refuses them with a message and the usage', () => {
    fc.assert(
      fc.property(text, ([name, words]) => {
        const { request } = parseCommandText([name, ...words].join(' '), actor);
        const sub = subcommands.find((s) => s.name === name)!;
        try {
          sub.args.read(request);
        } catch (error) {
          expect(error).toBeInstanceOf(UserInputError);
          const refusal = error as UserInputError;
          expect(refusal.message).not.toMatch(/undefined|NaN|\[object |Invalid input|expected/);
          expect(refusal.usage).toBeTruthy();
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('refuse a flag one letter off one they take, naming that one', () => {
    for (const sub of subcommands) {
      for (const flag of sub.args.flags) {
        const typo = `${flag.slice(0, -1)}${flag.at(-1) === 'x' ? 'y' : 'x'}`;
        // A game day's flags belong to one action each: `--guard` and `--rehearsal` to start, `--wait` to auto, the others to step.
        const gameday = ['--guard', '--rehearsal'].includes(flag)
          ? ['start', 'Drill']
          : flag === '--wait'
            ? ['auto', 'on']
            : ['step'];
        const first = sub.name === 'gameday' ? gameday : sub.name === 'halt' ? ['6f1c2d3e-aaaa'] : [];
        const { request } = parseCommandText([sub.name, ...first, typo, 'value'].join(' '), actor);
        expect(() => sub.args.read(request), `${sub.name} ${typo}`).toThrow(`Did you mean \`${flag}\`?`);
      }
    }
  });
});
