import parse from 'yargs-parser';
import { z } from 'zod';
import { UserInputError } from '../errors.ts';
import { flagText, flagWords } from '../views/attacks/flags.ts';
import type { CommandRequest } from './command.ts';
import { closestWord } from '../suggest.ts';

/**
 * What a subcommand takes, declared once: its flags and its words. Every subcommand reads its
 * arguments through its contract before it does anything, so a flag it does not take, a flag
 * without its value, a switch given one, or a word too many is refused with the usage, and
 * nothing runs.
 */

/** One flag: it takes a value (`--reason text`) or is a switch (`--all`). */
export interface Flag<T> {
  takes: 'value' | 'switch';
  /** Checks what was given for the flag as `typed` (`--reason`): a string, `true`, a list, or '' for nothing. */
  schema(typed: string): z.ZodType<T | undefined>;
}

export type Flags = Record<string, Flag<unknown>>;
export type FlagValues<F extends Flags> = { [K in keyof F]: F[K] extends Flag<infer T> ? T | undefined : never };

/**
 * The one value given for a value flag, trimmed; '' with an issue when there is none (yargs-parser
 * gives '' for a flag left without its value, the attack reader `true`) or more than one.
 */
function oneValue(typed: string, what: string, given: unknown, ctx: z.RefinementCtx): string {
  if (Array.isArray(given)) ctx.addIssue({ code: 'custom', message: flagWords.givenTwice(typed) });
  else if (typeof given !== 'string' || !given.trim())
    ctx.addIssue({ code: 'custom', message: flagWords.needsValue(typed, what) });
  else return given.trim();
  return '';
}

/** A flag with one value that `as` checks or converts; `what` says what the value is ("some text"). */
function valueFlag<T>(what: string, as: z.ZodType<T, string>): Flag<T> {
  return {
    takes: 'value',
    schema: (typed) =>
      z.unknown().transform((given, ctx): T | undefined => {
        if (given === undefined) return undefined;
        const text = oneValue(typed, what, given, ctx);
        if (!text) return undefined;
        const parsed = as.safeParse(text);
        if (!parsed.success) ctx.addIssue({ code: 'custom', message: flagWords.badValue(typed, text, what) });
        return parsed.data;
      }),
  };
}

export const flag = {
  value: (what: string): Flag<string> => valueFlag(what, z.string()),
  /** A value that `as` checks or converts: a value it refuses is not one the flag takes. */
  read: valueFlag,
  /** A flag that may be given several times, each with one value. */
  values: (what: string): Flag<string[]> => ({
    takes: 'value',
    schema: (typed) =>
      z.unknown().transform((given, ctx): string[] | undefined => {
        if (given === undefined) return undefined;
        return (Array.isArray(given) ? given : [given]).map((one) => oneValue(typed, what, one, ctx));
      }),
  }),
  /** A switch: given alone, never with a value. */
  switch: (): Flag<true> => ({
    takes: 'switch',
    schema: (typed) =>
      z.unknown().transform((given, ctx): true | undefined => {
        if (given === undefined || given === true) return given;
        ctx.addIssue({ code: 'custom', message: flagWords.takesNoValue(typed) });
        return undefined;
      }),
  }),
};

/** Every flag as typed (`--team`). */
export const flagSpellings = (flags: Flags): string[] => Object.keys(flags).map(flagText);

/** The flag meant by one typed a letter or two off, among `spellings`; too short a word is not guessed at. */
export const nearestFlag = (typed: string, spellings: string[]): string | undefined =>
  typed.length > 3 ? closestWord(typed, spellings) : undefined;

/** The refusal of a flag a command does not take, with the nearest one it does. */
export function unknownFlagError(
  typed: string,
  flags: Flags,
  command: string,
  usage: string,
  takes?: string,
): UserInputError {
  const spellings = flagSpellings(flags);
  return new UserInputError(
    flagWords.unknown(typed, command, nearestFlag(typed, spellings), takes ?? (spellings.length ? undefined : 'none')),
    usage,
  );
}

/**
 * Each set of flags' schema, built once: zod compiles an object schema at its first parse, so one
 * built per request cost a compile and its garbage every time.
 */
const flagsSchemas = new WeakMap<Flags, z.ZodType>();

function flagsSchema(flags: Flags): z.ZodType {
  let schema = flagsSchemas.get(flags);
  if (!schema) {
    schema = z.object(
      Object.fromEntries(Object.entries(flags).map(([name, spec]) => [name, spec.schema(flagText(name)).optional()])),
    );
    flagsSchemas.set(flags, schema);
  }
  return schema;
}

/**
 * Checks the flags given (by long name) against the declared ones: values, switches and repeats.
 * The attack reader, which keeps its own order of words, checks the bot's flags with this too.
 */
export function checkFlags<F extends Flags>(flags: F, given: Record<string, unknown>, usage: string): FlagValues<F> {
  return checked(flagsSchema(flags), given, usage) as FlagValues<F>;
}

/** What `schema` makes of `given`; its first issue is the refusal, with the usage. */
function checked<T>(schema: z.ZodType<T>, given: unknown, usage: string): T {
  const parsed = schema.safeParse(given);
  if (!parsed.success) throw new UserInputError(parsed.error.issues[0]!.message, usage);
  return parsed.data;
}

/** A contract reads a request's words into what its subcommand runs with, or refuses them. */
export interface Contract<A> {
  read(request: CommandRequest): A;
  /** Every flag it takes, as typed, for the help to name. */
  flags: string[];
}

export interface ContractSpec<W extends z.ZodRawShape, F extends Flags, R> {
  /** The command as typed, for messages: `halt`, `gameday start`. */
  command: string;
  usage: string;
  /** The words, in order; each is checked as a string, or undefined when it was not given. */
  words?: W;
  /** The words after those: free text such as a title. Without it, a word more is refused. */
  rest?: z.ZodType<R, string[]>;
  flags?: F;
  /** What it takes, said when a flag it does not take is given: "a title and `--guard`". */
  takes?: string;
  /** Flags only before the first word; everything after it is text (a note's words may start with `-`). */
  textAfterFirstWord?: boolean;
}

export interface Arguments<W extends z.ZodRawShape, F extends Flags, R> {
  words: z.output<z.ZodObject<W>>;
  rest: R;
  flags: FlagValues<F>;
}

const parserConfiguration = {
  'camel-case-expansion': false,
  'parse-numbers': false,
  'parse-positional-numbers': false,
  'dot-notation': false,
  'boolean-negation': false,
};

/** A switch typed with `=value`: yargs-parser would read it as false and drop the value. */
function switchValues(tokens: readonly string[], flags: Flags): Record<string, string> {
  const found: Record<string, string> = {};
  for (const token of tokens) {
    if (token === '--') break;
    const match = /^--([^=]+)=([\s\S]*)$/.exec(token);
    if (match && Object.hasOwn(flags, match[1]!) && flags[match[1]!]!.takes === 'switch') found[match[1]!] = match[2]!;
  }
  return found;
}

/** The contract of a subcommand (or of one form of it, such as `gameday start`). */
export function contract<
  W extends z.ZodRawShape = Record<never, never>,
  F extends Flags = Record<never, never>,
  R = [],
>(spec: ContractSpec<W, F, R>): Contract<Arguments<W, F, R>> {
  const flags = (spec.flags ?? {}) as F;
  const wordNames = Object.keys(spec.words ?? {});
  const words = z.object(spec.words ?? ({} as W));
  const rest: z.ZodType<unknown, string[]> =
    spec.rest ??
    z.array(z.string()).refine((extra) => extra.length === 0, {
      error: (issue) => flagWords.extraWords(spec.command, issue.input as string[]),
    });
  const entries = Object.entries(flags);
  const options = {
    configuration: { ...parserConfiguration, 'halt-at-non-option': spec.textAfterFirstWord ?? false },
    string: entries.filter(([, f]) => f.takes === 'value').map(([name]) => name),
    boolean: entries.filter(([, f]) => f.takes === 'switch').map(([name]) => name),
  };
  return {
    flags: flagSpellings(flags),
    read(request) {
      const { _: positional, ...parsed } = parse([...request.tokens], options);
      const unknown = Object.keys(parsed).find((key) => !Object.hasOwn(flags, key));
      if (unknown !== undefined) throw unknownFlagError(flagText(unknown), flags, spec.command, spec.usage, spec.takes);
      const given = Object.fromEntries(Object.keys(flags).map((name) => [name, parsed[name]]));
      const checkedFlags = checkFlags(flags, { ...given, ...switchValues(request.tokens, flags) }, spec.usage);
      const all = positional.map(String);
      const checkedWords = checked(words, Object.fromEntries(wordNames.map((name, i) => [name, all[i]])), spec.usage);
      const checkedRest = checked(rest, all.slice(wordNames.length), spec.usage);
      return { words: checkedWords, rest: checkedRest as R, flags: checkedFlags };
    },
  };
}

type FormOf<M extends Record<string, Contract<unknown>>> = {
  [K in keyof M]: { form: K; args: M[K] extends Contract<infer A> ? A : never };
}[keyof M];

/** The form a first word names (`gameday start`, `halt all`), read by that form's contract. */
function namedForm<M extends Record<string, Contract<unknown>>>(
  byWord: M,
  request: CommandRequest,
): FormOf<M> | undefined {
  const first = request.tokens[0]?.toLowerCase();
  if (first === undefined || !Object.hasOwn(byWord, first)) return undefined;
  return { form: first, args: byWord[first]!.read({ ...request, tokens: request.tokens.slice(1) }) } as FormOf<M>;
}

/** Every flag the forms take, each once. */
const flagsOf = (forms: Contract<unknown>[]) => [...new Set(forms.flatMap((form) => form.flags))];

/** Forms chosen by their first word (`halt all`); any other first word is `otherwise`'s (`halt <id>`). */
export function forms<M extends Record<string, Contract<unknown>>, O>(
  byWord: M,
  otherwise: Contract<O>,
): Contract<FormOf<M> | { form: undefined; args: O }> {
  return {
    flags: flagsOf([...Object.values(byWord), otherwise]),
    read: (request) => namedForm(byWord, request) ?? { form: undefined, args: otherwise.read(request) },
  };
}

/** Actions named by their first word (`gameday start`); `unknown` says what a missing or other word is not. */
export function actions<M extends Record<string, Contract<unknown>>>(
  spec: { command: string; usage: string; unknown(word: string | undefined): string },
  byWord: M,
): Contract<FormOf<M>> {
  return {
    flags: flagsOf(Object.values(byWord)),
    read(request) {
      const named = namedForm(byWord, request);
      if (named) return named;
      const first = request.tokens[0];
      if (first && /^--?[^-]/.test(first))
        throw unknownFlagError(
          first.replace(/=[\s\S]*$/, ''),
          {},
          spec.command,
          spec.usage,
          `${Object.keys(byWord).join(', ')} first`,
        );
      const closest = first === undefined ? undefined : closestWord(first, Object.keys(byWord));
      if (!closest) throw new UserInputError(spec.unknown(first), spec.usage);
      // The usage line of the action meant, where the usage lists each one apart (`a … | b …`).
      const meant = `${spec.command} ${closest}`;
      const lines = spec.usage.split(' | ').filter((line) => line === meant || line.startsWith(`${meant} `));
      throw new UserInputError(
        `${spec.unknown(first)} Did you mean \`${meant}\`?`,
        lines.length ? lines.join(' | ') : spec.usage,
      );
    },
  };
}

/** The contract of a subcommand that reads its words itself, in order (`attack`, whose flags are the platform's). */
export const ownWords: Contract<readonly string[]> = { flags: [], read: (request) => request.tokens };
