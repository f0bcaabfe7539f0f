/**
 * Properties of the command parser over arbitrary text: every input gets a parse result or a
 * UserInputError (never another throw), the team is read the same way by every reader, and what
 * the preview writes as the equivalent command parses back to the same attack.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { builtInCatalogue } from '../../src/client/catalogue.ts';
import { parseAttackCommand, requestedTeam } from '../../src/commands/attacks/parse.ts';
import { parseCommandText } from '../../src/commands/index.ts';
import { UserInputError } from '../../src/errors.ts';
import type { AttackRequest } from '../../src/attacks/request.ts';
import { equivalentCommand } from '../../src/views/attacks/attackPreview.ts';

const limits = { maxAttackSeconds: 3600 };
const actor = { workspaceId: 'T0PROP', userId: 'U0PROP', userName: 'prop', channelId: 'C0PROP' };

/** Words people type in attack commands, and the ways they go wrong. */
const word = fc.oneof(
  fc.constantFrom(
    'cpu',
    'memory',
    'latency',
    'shutdown',
    'dns',
    'cpuu',
    'CPU',
    '-l',
    '--length',
    '-c',
    '-p',
    '-a',
    '-g',
    '-m',
    '-d',
    '-r',
    '-o',
    '-i',
    '-x',
    '-y',
    '--team',
    '--team=Payments',
    '--yes',
    '--yes=true',
    '--target-tags',
    '--target-tag',
    '--target-hosts',
    '--target-labels',
    '--target-count',
    '--target-service',
    '30',
    '0',
    '-4',
    '500',
    '1000000',
    '1.5',
    '1e3',
    '99999999999999999999',
    'role=web',
    'a,,b',
    '=x',
    'Payments',
    '10.0.0.1',
    '__proto__',
    '-',
    '--',
    '"',
    "'",
    '"a b"',
    '<!here>',
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.integer().map(String),
);
const space = fc.constantFrom(' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2009', '\u3000', '\u0085');
const commandText = fc
  .array(fc.tuple(word, space), { maxLength: 14 })
  .map((parts) => parts.map(([w, s]) => w + s).join(''));
const anyText = fc.oneof(commandText, fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }));

/** The attack a text gives, or the UserInputError it gets; anything else fails the property. */
function attackOf(text: string): AttackRequest | UserInputError {
  const { request } = parseCommandText(`attack ${text}`, actor);
  try {
    if (request.unclosedQuote) return new UserInputError('unclosed quote');
    return parseAttackCommand(request.tokens, builtInCatalogue, limits);
  } catch (error) {
    if (error instanceof UserInputError) return error;
    throw error;
  }
}

describe('the command parser, for any text', () => {
  it('splits any text into a subcommand and its words without throwing', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const { name, request } = parseCommandText(text, actor);
        expect(typeof name).toBe('string');
        expect(request.tokens.every((token) => typeof token === 'string')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('gives an attack or a clear error with the usage, never another throw', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const result = attackOf(text);
        if (result instanceof UserInputError) {
          expect(result.message.length).toBeGreaterThan(0);
          expect(result.message).not.toMatch(/undefined|NaN|\[object /);
        } else {
          expect(builtInCatalogue.some((type) => type.name === result.type)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads --team the same way for choosing the team as for the rest of the command', () => {
    fc.assert(
      fc.property(commandText, (text) => {
        const { request } = parseCommandText(`attack ${text}`, actor);
        const result = attackOf(text);
        if (!(result instanceof UserInputError)) expect(result.team).toBe(requestedTeam(request.tokens));
      }),
      { numRuns: 300 },
    );
  });

  it('parses the equivalent command the preview shows back to the same attack', () => {
    fc.assert(
      fc.property(commandText, (text) => {
        const result = attackOf(text);
        if (result instanceof UserInputError) return;
        expect(attackOf(equivalentCommand(result).slice('attack '.length))).toEqual(result);
      }),
      { numRuns: 300 },
    );
  });

  it('sends no number out of its range', () => {
    const ranges: Record<string, [number, number]> = {
      '-p': [1, 100],
      '--percent': [1, 100],
      '-c': [1, Infinity],
      '--cores': [1, Infinity],
      '-l': [1, 3600],
    };
    fc.assert(
      fc.property(
        fc.constantFrom('-p', '--percent', '-c', '--cores', '-l'),
        fc.integer({ min: -1_000_000, max: 1_000_000 }),
        (flag, value) => {
          const result = attackOf(`cpu ${flag} ${value}`);
          const [min, max] = ranges[flag]!;
          expect(result instanceof UserInputError).toBe(value < min || value > max);
        },
      ),
      { numRuns: 200 },
    );
  });
});
