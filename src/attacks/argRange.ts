import type { InfraAttackArg } from '../client/catalogue.ts';

/** The numbers a numeric attack argument accepts; a bound left out is open. */
export interface ArgRange {
  min?: number | undefined;
  /** The minimum itself is excluded: "greater than 0". */
  minExclusive?: boolean | undefined;
  max?: number | undefined;
}

/** The largest whole number an agent's command line is sure to read (a 32-bit integer). */
export const largestWholeNumber = 2_147_483_647;

/** The longest picks `--target-count` accepts: more than this from one command is a slip. */
export const maxTargetCount = 1000;

/** Arguments that are shares of something: "Percent of each core to consume". */
const isPercent = (arg: InfraAttackArg) =>
  arg.name.toLowerCase() === 'percent' || /^percent(age)?\b/i.test(arg.info ?? '');

/**
 * Whole-number arguments whose value may be zero or negative. Every other whole number is a
 * count, a size or a duration, and is at least 1; every other decimal is more than 0.
 */
const signed = new Set(['offset']);
const mayBeZero = new Set(['delay']);

/**
 * The range of a numeric argument: the bounds the platform's metadata gives, and for the bounds it
 * leaves out, general rules (percentages 1–100, counts and lengths at least 1). Undefined for
 * arguments that are not numbers. MAX_ATTACK_SECONDS is checked apart from this, with its own words.
 */
export function argRange(arg: InfraAttackArg): ArgRange | undefined {
  if (arg.type !== 'Integer' && arg.type !== 'Float') return undefined;
  const general: ArgRange = isPercent(arg)
    ? { min: 1, max: 100 }
    : signed.has(arg.name)
      ? {}
      : mayBeZero.has(arg.name)
        ? { min: 0 }
        : arg.type === 'Integer'
          ? { min: 1 }
          : { min: 0, minExclusive: true };
  const given = (value: number | null | undefined) =>
    typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  const min = given(arg.min);
  const max = given(arg.max);
  return {
    ...(min !== undefined
      ? { min }
      : general.min !== undefined
        ? { min: general.min, minExclusive: general.minExclusive }
        : {}),
    ...(max !== undefined ? { max } : general.max !== undefined ? { max: general.max } : {}),
  };
}

/** Whether a number is within a range. */
export function inRange(value: number, range: ArgRange): boolean {
  if (range.min !== undefined && (range.minExclusive ? value <= range.min : value < range.min)) return false;
  return range.max === undefined || value <= range.max;
}

/** A range in words, to follow "a whole number": " from 1 to 100", ", at least 1", " greater than 0". */
export function rangeWords(range: ArgRange): string {
  const { min, max } = range;
  if (min !== undefined && max !== undefined)
    return range.minExclusive ? ` greater than ${min} and at most ${max}` : ` from ${min} to ${max}`;
  if (min !== undefined) return range.minExclusive ? ` greater than ${min}` : `, at least ${min}`;
  if (max !== undefined) return `, at most ${max}`;
  return '';
}
