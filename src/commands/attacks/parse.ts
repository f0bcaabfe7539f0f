import type { InfraAttackArg, InfraAttackMetadata } from '../../client/catalogue.ts';
import { defaultLength, findAttackType, flagOf, spellings } from '../../attacks/attackTypes.ts';
import { runsOnServices, type AttackRequest, type AttackTarget } from '../../attacks/request.ts';
import {
  givenTargetKinds,
  repeatableTargetFlags,
  targetFlags,
  targetOptionFlags,
  type TargetOption,
} from '../../attacks/targetFlags.ts';
import type { Config } from '../../config.ts';
import { isPathId } from '../../client/ids.ts';
import { UserInputError } from '../../errors.ts';
import { guardKey, type GuardSpec } from '../../guardrails/guards.ts';
import { parseGuard } from '../guardrails/guardFlags.ts';
import { closestWord } from '../suggest.ts';
import { checkFlags, flag, flagSpellings, type Flag, type Flags } from '../contract.ts';
import { tokenize } from './tokenize.ts';
import { attackUsage, availableTypes } from './usage.ts';
import {
  code,
  implicitLength,
  lengthProblem,
  parseCount,
  parseIdList,
  parseKubernetesObjects,
  parsePairs,
  parsePercent,
  quoted,
  valueProblem,
  type AttackLimits,
} from './validate.ts';

/** What a command is checked against besides its type's metadata. */
export interface AttackParseOptions extends AttackLimits {
  /** The company's monitoring integrations, which `--guard` reads through; none configured when absent. */
  monitoring?: Config['monitoring'] | undefined;
  /** The slash command, for messages that name another subcommand. */
  command?: string | undefined;
}

export const guardFlag = '--guard';

/** A flag as typed: its name (`-l`, `--length`) and a value given with `=`, if any. */
function splitFlag(token: string): { name: string; inline: string | undefined } | undefined {
  const match = /^(--[^=\s]+|-[A-Za-z])(?:=([\s\S]*))?$/.exec(token);
  return match ? { name: match[1]!, inline: match[2] } : undefined;
}

/** Whether the word after a flag is another flag rather than its value (`-5` is a value). */
const looksLikeFlag = (word: string) => /^--?[A-Za-z]/.test(word);

/** A bot flag's name as declared: its long spelling without the dashes. */
const declared = (typed: string) => typed.slice(2);

/**
 * The bot's own flags, which every attack type has besides its own, declared as every other
 * command declares its flags and checked by the same contract; the type's own flags are the
 * platform's and keep their order. `--yes` is only spelt out: a short `-y` could be an attack
 * type's own flag, and then mean "no preview".
 */
const attackFlags: Flags & { yes: Flag<true>; team: Flag<string>; guard: Flag<string[]> } = {
  yes: flag.switch(),
  team: flag.value('a value'),
  guard: flag.values('a value'),
  ...(Object.fromEntries([
    ...Object.values(targetFlags).map((target) => [
      declared(target.flag),
      repeatableTargetFlags.includes(target.flag)
        ? flag.values('a value')
        : flag.value(target === targetFlags.service ? 'a service id' : 'a value'),
    ]),
    ...Object.values(targetOptionFlags).map((option) => [
      declared(option.flag),
      'value' in option ? flag.value('a value') : flag.switch(),
    ]),
  ]) as Flags),
};

const botFlags = flagSpellings(attackFlags);

/** The bot flag a word names (`--team`, `--team=x`), or undefined for the type's own flags. */
const botFlagOf = (name: string) =>
  name.startsWith('--') && Object.hasOwn(attackFlags, declared(name)) ? declared(name) : undefined;

/** " Did you mean `--cores`?" for a long flag one or two letters off a real one, else nothing. */
function flagHint(word: string, metadata: InfraAttackMetadata): string {
  const long = word.startsWith('--') ? word : `-${word}`;
  const known = [...metadata.args.map((arg) => `--${arg.long ?? arg.name}`), ...botFlags];
  const closest = long.length > 3 ? closestWord(long, known) : undefined;
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
    const next = words[index + 1];
    const value = flag.inline ?? (next !== undefined && !looksLikeFlag(next) ? next : undefined);
    return value?.trim() || undefined;
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
  if (typeWord === undefined) {
    throw new UserInputError(
      `Name the attack type to run. Available: ${availableTypes(catalogue)}.`,
      attackUsage.general,
    );
  }
  if (typeWord.startsWith('-')) {
    throw new UserInputError(
      `Start with the attack type, then its flags. Available: ${availableTypes(catalogue)}.`,
      attackUsage.general,
    );
  }
  const metadata = findAttackType(catalogue, typeWord);
  if (!metadata) {
    const closest = closestWord(
      typeWord,
      catalogue.map((type) => type.name),
    );
    const hint = closest ? ` Did you mean ${code(closest)}?` : '';
    throw new UserInputError(
      `${quoted(typeWord)} is not an attack type.${hint} Available: ${availableTypes(catalogue)}.`,
      attackUsage.general,
    );
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
    const takeValue = (): string => {
      if (flag.inline !== undefined) return flag.inline;
      const next = words[index + 1];
      if (next === undefined || looksLikeFlag(next)) throw fail(`${code(flag.name)} needs a value.`);
      index++;
      return next;
    };

    const botFlag = botFlagOf(flag.name);
    if (botFlag) {
      const next = words[index + 1];
      let value: string | true = true;
      if (flag.inline !== undefined) value = flag.inline;
      else if (attackFlags[botFlag]!.takes === 'value' && next !== undefined && !looksLikeFlag(next)) {
        value = next;
        index++;
      }
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
    const value = takeValue();
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

  const tooLong = lengthProblem(lengthSeconds, limits);
  if (tooLong) {
    const lengthArg = metadata.args.find((arg) => arg.name === 'length');
    const lengthFlag = lengthArg ? code(flagOf(lengthArg)) : 'a shorter length';
    throw fail(
      given.has('length')
        ? `${lengthSeconds} seconds is too long. ${tooLong} Give ${lengthFlag} of ${limits.maxAttackSeconds} or less.`
        : `${tooLong} ${metadata.name} runs ${lengthSeconds} seconds by default, so give ${lengthFlag} of ${limits.maxAttackSeconds} or less.`,
    );
  }

  const botValues = checkFlags(attackFlags, bot, usage);
  const guards: GuardSpec[] = [];
  for (const text of botValues.guard ?? []) {
    const spec = readGuard(text, limits, fail);
    if (!guards.some((g) => guardKey(g) === guardKey(spec))) guards.push(spec);
  }
  const targets = new Map(
    [...Object.values(targetFlags), ...Object.values(targetOptionFlags)].flatMap(({ flag: typed }) => {
      const value = botValues[declared(typed)];
      return value === undefined ? [] : [[typed, value === true ? [''] : [value as string | string[]].flat()] as const];
    }),
  );
  const target = targetFromFlags(targets, metadata, fail);
  return {
    type: metadata.name,
    args,
    target,
    team: botValues.team,
    yes: botValues.yes === true,
    lengthSeconds,
    ...(guards.length ? { guards } : {}),
  };
}

/** One `--guard` value, with the company's integrations; what is wrong with it names the flag. */
function readGuard(text: string, options: AttackParseOptions, fail: (message: string) => UserInputError): GuardSpec {
  try {
    return parseGuard(
      text,
      { monitoring: options.monitoring ?? { integrationA: undefined, domainA: undefined, uriB: undefined } },
      options.command ?? '/chaos',
    );
  } catch (error) {
    if (error instanceof UserInputError) throw fail(`${code(guardFlag)}: ${error.message}`);
    throw error;
  }
}

function targetFromFlags(
  flags: Map<string, string[]>,
  metadata: InfraAttackMetadata,
  fail: (message: string) => UserInputError,
): AttackTarget {
  const kinds = givenTargetKinds((flag) => flags.has(flag));
  if (kinds.length > 1) {
    throw fail(
      `Use one target flag, not ${kinds.map((k) => code(targetFlags[k].flag)).join(' and ')}: ${attackUsage.targetFlags}.`,
    );
  }
  const kind = kinds[0];
  const optionText = (option: TargetOption): string | undefined => {
    const { flag, with: kindsOf, does } = targetOptionFlags[option];
    const text = flags.get(flag)?.[0];
    if (text === undefined) return undefined;
    if (!kind || !(kindsOf as readonly string[]).includes(kind)) {
      const needs = kindsOf.map((k) => code(targetFlags[k].flag)).join(' or ');
      throw fail(
        `${code(flag)} ${does} ${needs}; ${kind ? `it does not go with ${code(targetFlags[kind].flag)}` : kindsOf.length > 1 ? 'add one of them' : 'add it'}.`,
      );
    }
    return text;
  };
  const number = (
    option: TargetOption,
    read: (text: string) => { value: number } | { problem: string },
  ): number | undefined => {
    const text = optionText(option);
    if (text === undefined) return undefined;
    const parsed = read(text);
    if ('problem' in parsed)
      throw fail(`${quoted(text)} is not a valid value for ${code(targetOptionFlags[option].flag)}. ${parsed.problem}`);
    return parsed.value;
  };
  const asCount = (text: string) => {
    const parsed = parseCount(text);
    return 'problem' in parsed ? parsed : { value: parsed.count };
  };
  const asPercent = (text: string) => {
    const parsed = parsePercent(text);
    return 'problem' in parsed ? parsed : { value: parsed.percent };
  };
  const count = number('count', asCount);
  const k8sCount = number('k8sCount', asCount);
  const k8sPercent = number('k8sPercent', asPercent);
  const samplePercent = number('samplePercent', asPercent);
  const includeNewTargets = optionText('includeNewTargets') !== undefined;
  if (kind === undefined) return { kind: 'all' };
  const { flag } = targetFlags[kind];
  const texts = flags.get(flag)!;
  const text = texts[0]!;
  const bad = (problem: string) => fail(`${code(flag)} ${quoted(text)}: ${problem}`);
  switch (kind) {
    case 'hosts':
    case 'containers': {
      const parsed = parseIdList(text);
      if ('problem' in parsed) throw bad(parsed.problem);
      return kind === 'hosts' ? { kind: 'hosts', ids: parsed.ids } : { kind: 'containers', ids: parsed.ids };
    }
    case 'tags':
    case 'labels': {
      const parsed = parsePairs(text);
      if ('problem' in parsed) throw bad(parsed.problem);
      const exact = count !== undefined ? { count } : {};
      return kind === 'tags'
        ? { kind: 'tags', tags: parsed.pairs, ...exact }
        : { kind: 'labels', labels: parsed.pairs, ...exact };
    }
    case 'service': {
      if (!runsOnServices(metadata.name))
        throw fail(`${metadata.name} attacks cannot target a service; use hosts, containers, tags or labels.`);
      const serviceId = text.trim();
      if (serviceId === '') throw fail(`${code(flag)} needs a service id.`);
      if (/[\s,]/.test(serviceId)) throw bad('give one service id, not a list; start one attack per service.');
      if (!isPathId(serviceId))
        throw bad(
          "a service id has letters, digits, `-` and `_` only; copy it from the service's page on the platform.",
        );
      return {
        kind: 'service',
        serviceId,
        ...(samplePercent !== undefined ? { percent: samplePercent } : {}),
        ...(includeNewTargets ? { includeNewTargets } : {}),
      };
    }
    case 'kubernetes': {
      if (k8sCount !== undefined && k8sPercent !== undefined) {
        throw fail(
          `Give ${code(targetOptionFlags.k8sCount.flag)} or ${code(targetOptionFlags.k8sPercent.flag)}, not both.`,
        );
      }
      const parsed = parseKubernetesObjects(texts);
      if ('problem' in parsed) throw fail(`${code(flag)}: ${parsed.problem}`);
      return {
        kind: 'kubernetes',
        objects: parsed.objects,
        ...(k8sCount !== undefined ? { count: k8sCount } : {}),
        ...(k8sPercent !== undefined ? { percent: k8sPercent } : {}),
      };
    }
  }
}
