import { builtInCatalogue, type InfraAttackArg, type InfraAttackMetadata } from '../client/catalogue.ts';
import { UnauthorizedError } from '../client/errors.ts';
import type { ScopedPlatform } from '../client/index.ts';
import type { Logger } from '../logger.ts';

/**
 * The attack catalogue: each team's attack types as the platform describes them (cached), and what
 * a type's metadata says: its flags, its default length and the numbers each argument accepts.
 */

export interface Catalogue {
  types: readonly InfraAttackMetadata[];
  source: 'platform' | 'built-in';
}

/**
 * The attack types and arguments of each team, read from `GET /metadata` at most every ten
 * minutes. A modal must open within Slack's 3 s, so a slow platform gets the built-in catalogue
 * this time while its answer is still kept for the next. Only answers are shared between people:
 * each read is made with, and fails for, the session of the person who asked.
 */
export class CatalogueCache {
  readonly #entries = new Map<string, { at: number; catalogue: Catalogue }>();
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #ttlMs: number;

  constructor(logger: Logger, now: () => number, ttlMs = 10 * 60_000) {
    this.#logger = logger;
    this.#now = now;
    this.#ttlMs = ttlMs;
  }

  async get(teamId: string, api: ScopedPlatform, waitMs = 1_500): Promise<Catalogue> {
    const cached = this.#entries.get(teamId);
    if (cached && this.#now() - cached.at < this.#ttlMs) return cached.catalogue;
    const reading = api.metadata.catalogue().then((catalogue) => {
      if (catalogue.source === 'platform') this.#entries.set(teamId, { at: this.#now(), catalogue });
      return catalogue;
    });
    let timer: NodeJS.Timeout | undefined;
    const fallback = new Promise<Catalogue | 'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), waitMs);
    });
    try {
      const first = await Promise.race([reading, fallback]);
      if (first !== 'late') return first;
      // Too slow this time: the read goes on and fills the cache; its failure is only logged.
      reading.catch((error: unknown) => {
        if (!(error instanceof UnauthorizedError))
          this.#logger.warn({ err: error, teamId }, 'could not read attack metadata');
      });
      return { types: builtInCatalogue, source: 'built-in' };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The attack type named `word`, ignoring case as people type it. */
export function findAttackType(
  catalogue: readonly InfraAttackMetadata[],
  word: string,
): InfraAttackMetadata | undefined {
  const wanted = word.toLowerCase();
  return catalogue.find((metadata) => metadata.name.toLowerCase() === wanted);
}

const typeGroups = ['Resource', 'State', 'Network'] as const;

/** Attack types by group, the three known groups first, for lists and the builder's select. */
export function groupedTypes(
  catalogue: readonly InfraAttackMetadata[],
): { group: string; types: InfraAttackMetadata[] }[] {
  const groups = new Map<string, InfraAttackMetadata[]>(typeGroups.map((group) => [group, []]));
  for (const metadata of catalogue) {
    const group = typeGroups.find((known) => known === metadata.type) ?? 'Other';
    groups.set(group, [...(groups.get(group) ?? []), metadata]);
  }
  return [...groups].filter(([, types]) => types.length > 0).map(([group, types]) => ({ group, types }));
}

/** The flag the bot writes for an argument: the short one when there is one, as people type it. */
export function flagOf(arg: InfraAttackArg): string {
  return arg.short ? `-${arg.short}` : `--${arg.long ?? arg.name}`;
}

/** Every spelling of an argument's flag, for messages: `-l/--length`. */
export function spellings(arg: InfraAttackArg): string {
  return [arg.short ? `-${arg.short}` : undefined, `--${arg.long ?? arg.name}`].filter(Boolean).join('/');
}

/** The default length of a type in seconds, or undefined when it has none. */
export function defaultLength(metadata: InfraAttackMetadata): number | undefined {
  const length = metadata.args.find((arg) => arg.name === 'length');
  if (length?.default === null || length?.default === undefined) return undefined;
  const seconds = Number(length.default);
  return Number.isFinite(seconds) ? seconds : undefined;
}

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
