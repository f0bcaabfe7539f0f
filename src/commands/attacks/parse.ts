import type { InfraAttackArg, InfraAttackMetadata } from '../../client/catalogue.ts';
import { defaultLength, findAttackType, flagOf, groupedTypes, spellings } from '../../attacks/catalogue.ts';
import { targetFlagsUsage } from '../../attacks/request.ts';
import { guardUsage } from '../guardrails/guardFlags.ts';
import type { AttackRequest } from '../../attacks/request.ts';
import { UserInputError } from '../../errors.ts';
import { closestWord } from '../../suggest.ts';
import { checkFlags, nearestFlag } from '../contract.ts';
import { type AttackParseOptions, attackFlags, botFlagOf, botFlags, botFlagsRequest } from './botFlags.ts';
import { splitWords } from '../command.ts';
import { code, implicitLength, lengthProblem, quoted, valueProblem } from './validate.ts';

/** Usage lines, without the slash command (describeError puts it in front). */
export const attackUsage = {
  general: 'attack <type> [attack flags] [target flags] [--guard G] [--team T] [--yes]',
  targetFlags: targetFlagsUsage,
  /** `--guard`, which may be given more than once. */
  guards: `${guardUsage} (repeatable)`,
  /** `attack cpu [-l length] …` from the type's metadata, then the bot's own flags. */
  forType(metadata: InfraAttackMetadata): string {
    const own = metadata.usage?.trim() || [metadata.name, ...metadata.args.map(argUsage)].join(' ');
    return `attack ${own} [target flags] [--guard G] [--team T] [--yes]`;
  },
} as const;

function argUsage(arg: InfraAttackArg): string {
  const text = arg.type === 'Boolean' ? flagOf(arg) : `${flagOf(arg)} ${arg.name}`;
  return arg.required ? text : `[${text}]`;
}

/** Every type's name by group, in one line: `Resource: cpu, memory; Network: …`. */
export function availableTypes(catalogue: readonly InfraAttackMetadata[]): string {
  return groupedTypes(catalogue)
    .map(({ group, types }) => `${group}: ${types.map((t) => t.name).join(', ')}`)
    .join('; ');
}

/** A flag as typed: its name (`-l`, `--length`) and a value given with `=`, if any. */
function splitFlag(token: string): { name: string; inline: string | undefined } | undefined {
  const match = /^(--[^=\s]+|-[A-Za-z])(?:=([\s\S]*))?$/.exec(token);
  return match ? { name: match[1]!, inline: match[2] } : undefined;
}

/**
 * The value typed for a flag: after `=`, else the word after it unless that word is itself a flag
 * (`-5` is a value). The reader and requestedTeam both read values this one way.
 */
const typedValue = (flag: { inline: string | undefined }, next: string | undefined): string | undefined =>
  flag.inline ?? (next !== undefined && !/^--?[A-Za-z]/.test(next) ? next : undefined);

/** " Did you mean `--cores`?" for a long flag one or two letters off a real one, else nothing. */
function flagHint(word: string, metadata: InfraAttackMetadata): string {
  const long = word.startsWith('--') ? word : `-${word}`;
  const closest = nearestFlag(long, [...metadata.args.map((arg) => `--${arg.long ?? arg.name}`), ...botFlags]);
  return closest ? ` Did you mean ${code(closest)}?` : '';
}

/**
 * The value of `--team` as parseAttackCommand reads it from the same words: a flag's value is the
 * word after it unless that word is itself a flag, and no flag is ever a value, so a word spelt
 * `--team` is the team flag wherever it stands. The team must be known before the command is
 * parsed, because its metadata decides which flags exist.
 */
export function requestedTeam(words: readonly string[]): string | undefined {
  for (let index = 0; index < words.length; index++) {
    const flag = splitFlag(words[index]!);
    if (flag?.name !== '--team') continue;
    return typedValue(flag, words[index + 1])?.trim() || undefined;
  }
  return undefined;
}

function findArg(metadata: InfraAttackMetadata, name: string): InfraAttackArg | undefined {
  if (name.startsWith('--')) return metadata.args.find((arg) => `--${arg.long ?? arg.name}` === name);
  return metadata.args.find((arg) => arg.short !== null && arg.short !== undefined && `-${arg.short}` === name);
}

/**
 * Turns the text after `attack` into a checked AttackRequest, or throws a UserInputError that
 * says what is wrong and carries the usage line. Attack flags keep their order and the form they
 * were typed in, because the platform runs them as the command line the person wrote.
 */
export function parseAttackCommand(
  input: string | readonly string[],
  catalogue: readonly InfraAttackMetadata[],
  limits: AttackParseOptions,
): AttackRequest {
  const [typeWord, ...words] = typeof input === 'string' ? tokenize(input) : input;
  /** A type word that names no type: what is wrong, then the types there are. */
  const noType = (problem: string) =>
    new UserInputError(`${problem} Available: ${availableTypes(catalogue)}.`, attackUsage.general);
  if (typeWord === undefined) throw noType('Name the attack type to run.');
  if (typeWord.startsWith('-')) throw noType('Start with the attack type, then its flags.');
  const metadata = findAttackType(catalogue, typeWord);
  if (!metadata) {
    const closest = closestWord(
      typeWord,
      catalogue.map((type) => type.name),
    );
    throw noType(`${quoted(typeWord)} is not an attack type.${closest ? ` Did you mean ${code(closest)}?` : ''}`);
  }
  const usage = attackUsage.forType(metadata);
  const fail = (message: string) => new UserInputError(message, usage);

  const args: string[] = [];
  const given = new Set<string>();
  /** The bot's flags as typed: a value, `true` for a switch or a value left out, a list when repeated. */
  const bot: Record<string, unknown> = {};
  let lengthSeconds = defaultLength(metadata);

  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    const flag = splitFlag(word);
    if (!flag) {
      const previous = index > 0 ? splitFlag(words[index - 1]!) : undefined;
      const previousArg = previous && findArg(metadata, previous.name);
      const why =
        previous && previousArg?.type === 'Boolean'
          ? `${code(previous.name)} takes no value`
          : 'values follow the flag they belong to';
      throw fail(`Unexpected word ${quoted(word)}: ${why}.${word.startsWith('-') ? flagHint(word, metadata) : ''}`);
    }
    /** The flag's value, the next word read as it when it is one. */
    const read = (): string | undefined => {
      const value = typedValue(flag, words[index + 1]);
      if (value !== undefined && flag.inline === undefined) index++;
      return value;
    };

    const botFlag = botFlagOf(flag.name);
    if (botFlag) {
      // A switch takes only a value given with `=`: the word after it is the next flag or word.
      const value = (attackFlags[botFlag]!.takes === 'value' ? read() : flag.inline) ?? true;
      const before = bot[botFlag];
      bot[botFlag] = before === undefined ? value : [before, value].flat();
      // Checked as it is read, so the first thing wrong is what the person is told.
      checkFlags(attackFlags, bot, usage);
      continue;
    }

    const arg = findArg(metadata, flag.name);
    if (!arg) {
      const valid = /^--(target|k8s|sample|include)/.test(flag.name)
        ? `Target flags: ${attackUsage.targetFlags}.`
        : flag.name.startsWith('--gua')
          ? `Guards: ${attackUsage.guards}.`
          : `Flags of ${metadata.name}: ${metadata.args.map(spellings).join(', ') || 'none'}.`;
      throw fail(`${quoted(flag.name)} is not a flag of ${metadata.name}.${flagHint(flag.name, metadata)} ${valid}`);
    }
    if (given.has(arg.name) && !arg.multiple)
      throw fail(`${code(spellings(arg))} is given more than once; give it once.`);
    given.add(arg.name);

    if (arg.type === 'Boolean') {
      const setting = flag.inline?.toLowerCase();
      if (setting !== undefined && setting !== 'true' && setting !== 'false') {
        throw fail(
          `${code(flag.name)} is a switch: give it alone, or as ${code(`${flag.name}=true`)} or ${code(`${flag.name}=false`)}.`,
        );
      }
      // The platform's command line knows the switch only by its presence.
      if (setting !== 'false') args.push(flag.name);
      continue;
    }
    const value = read();
    if (value === undefined) throw fail(`${code(flag.name)} needs a value.`);
    const expected = valueProblem(arg, value);
    if (expected) throw fail(`${quoted(value)} is not a valid value for ${code(flag.name)}: expected ${expected}.`);
    args.push(flag.name, value);
    if (arg.name === 'length') lengthSeconds = Number(value);
  }

  const missing = metadata.args.filter((arg) => arg.required && !given.has(arg.name));
  if (missing.length > 0) {
    throw fail(
      `${metadata.name} needs ${missing.map((arg) => `${code(spellings(arg))}${arg.info ? ` (${arg.info})` : ''}`).join(' and ')}.`,
    );
  }

  if (!given.has('length')) {
    const implicit = implicitLength(metadata);
    if (implicit && 'problem' in implicit) throw fail(implicit.problem);
    if (implicit) {
      args.push(...implicit.args);
      lengthSeconds = implicit.seconds;
    }
  }

  const tooLong = lengthProblem(lengthSeconds, limits.maxAttackSeconds);
  if (tooLong) {
    const lengthArg = metadata.args.find((arg) => arg.name === 'length');
    const lengthFlag = lengthArg ? code(flagOf(lengthArg)) : 'a shorter length';
    throw fail(
      given.has('length')
        ? `${lengthSeconds} seconds is too long. ${tooLong} Give ${lengthFlag} of ${limits.maxAttackSeconds} or less.`
        : `${tooLong} ${metadata.name} runs ${lengthSeconds} seconds by default, so give ${lengthFlag} of ${limits.maxAttackSeconds} or less.`,
    );
  }

  const { guards, ...flags } = botFlagsRequest(bot, metadata, limits, usage);
  return { type: metadata.name, args, ...flags, lengthSeconds, ...(guards ? { guards } : {}) };
}

/** Why a quote left open makes the words unreliable, for commands whose values may be quoted. */
export function unclosedQuoteError(quote: '"' | "'"): UserInputError {
  return new UserInputError(`A ${quote === '"' ? 'double' : 'single'} quote is not closed.`, attackUsage.general);
}

/** Words of an attack command; an unclosed quote is an error there, since it would change what runs. */
export function tokenize(text: string): string[] {
  const { words, unclosedQuote } = splitWords(text);
  if (unclosedQuote) throw unclosedQuoteError(unclosedQuote);
  return words;
}
