import type { InfraAttackArg, InfraAttackMetadata } from '../../client/catalogue.ts';
import { availableTypes, defaultLength, findAttackType, flagOf, spellings } from '../../attacks/attackTypes.ts';
import { runsOnServices, type AttackRequest, type AttackTarget } from '../../attacks/request.ts';
import { givenTargetKinds, targetCountFlag, targetFlags, targetKindOf } from '../../attacks/targetFlags.ts';
import { UserInputError } from '../../errors.ts';
import { closestWord } from '../suggest.ts';
import { tokenize } from './tokenize.ts';
import { attackUsage } from './usage.ts';
import { code, implicitLength, lengthProblem, parseCount, parseIdList, parsePairs, quoted, valueProblem, type AttackLimits } from './validate.ts';

/** A flag as typed: its name (`-l`, `--length`) and a value given with `=`, if any. */
function splitFlag(token: string): { name: string; inline: string | undefined } | undefined {
  const match = /^(--[^=\s]+|-[A-Za-z])(?:=([\s\S]*))?$/.exec(token);
  return match ? { name: match[1]!, inline: match[2] } : undefined;
}

/** Whether the word after a flag is another flag rather than its value (`-5` is a value). */
const looksLikeFlag = (word: string) => /^--?[A-Za-z]/.test(word);

/** The bot's own flags, which every attack type has besides its own. */
const botFlags = ['--yes', '--team', ...Object.values(targetFlags).map((target) => target.flag), targetCountFlag];

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
export function parseAttackCommand(input: string | readonly string[], catalogue: readonly InfraAttackMetadata[], limits: AttackLimits): AttackRequest {
  const [typeWord, ...words] = typeof input === 'string' ? tokenize(input) : input;
  if (typeWord === undefined) {
    throw new UserInputError(`Name the attack type to run. Available: ${availableTypes(catalogue)}.`, attackUsage.general);
  }
  if (typeWord.startsWith('-')) {
    throw new UserInputError(`Start with the attack type, then its flags. Available: ${availableTypes(catalogue)}.`, attackUsage.general);
  }
  const metadata = findAttackType(catalogue, typeWord);
  if (!metadata) {
    const closest = closestWord(typeWord, catalogue.map((type) => type.name));
    const hint = closest ? ` Did you mean ${code(closest)}?` : '';
    throw new UserInputError(`${quoted(typeWord)} is not an attack type.${hint} Available: ${availableTypes(catalogue)}.`, attackUsage.general);
  }
  const usage = attackUsage.forType(metadata);
  const fail = (message: string) => new UserInputError(message, usage);

  const args: string[] = [];
  const given = new Set<string>();
  const targets = new Map<string, string>();
  let team: string | undefined;
  let yes = false;
  let lengthSeconds = defaultLength(metadata);

  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    const flag = splitFlag(word);
    if (!flag) {
      const previous = index > 0 ? splitFlag(words[index - 1]!) : undefined;
      const previousArg = previous && findArg(metadata, previous.name);
      const why = previous && previousArg?.type === 'Boolean' ? `${code(previous.name)} takes no value` : 'values follow the flag they belong to';
      throw fail(`Unexpected word ${quoted(word)}: ${why}.${word.startsWith('-') ? flagHint(word, metadata) : ''}`);
    }
    const takeValue = (): string => {
      if (flag.inline !== undefined) return flag.inline;
      const next = words[index + 1];
      if (next === undefined || looksLikeFlag(next)) throw fail(`${code(flag.name)} needs a value.`);
      index++;
      return next;
    };

    // Only the long form: a short `-y` could be an attack type's own flag, and then mean "no preview".
    if (flag.name === '--yes') {
      if (flag.inline !== undefined) throw fail(`${code(flag.name)} takes no value.`);
      yes = true;
      continue;
    }
    if (flag.name === '--team') {
      if (team !== undefined) throw fail('`--team` is given more than once.');
      team = takeValue().trim();
      if (team === '') throw fail('`--team` needs a team name or id.');
      continue;
    }
    if (targetKindOf(flag.name) || flag.name === targetCountFlag) {
      if (targets.has(flag.name)) throw fail(`${code(flag.name)} is given more than once.`);
      targets.set(flag.name, takeValue());
      continue;
    }

    const arg = findArg(metadata, flag.name);
    if (!arg) {
      const valid = flag.name.startsWith('--target')
        ? `Target flags: ${attackUsage.targetFlags}.`
        : `Flags of ${metadata.name}: ${metadata.args.map(spellings).join(', ') || 'none'}.`;
      throw fail(`${quoted(flag.name)} is not a flag of ${metadata.name}.${flagHint(flag.name, metadata)} ${valid}`);
    }
    if (given.has(arg.name) && !arg.multiple) throw fail(`${code(spellings(arg))} is given more than once; give it once.`);
    given.add(arg.name);

    if (arg.type === 'Boolean') {
      const setting = flag.inline?.toLowerCase();
      if (setting !== undefined && setting !== 'true' && setting !== 'false') {
        throw fail(`${code(flag.name)} is a switch: give it alone, or as ${code(`${flag.name}=true`)} or ${code(`${flag.name}=false`)}.`);
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
    throw fail(`${metadata.name} needs ${missing.map((arg) => `${code(spellings(arg))}${arg.info ? ` (${arg.info})` : ''}`).join(' and ')}.`);
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
    throw fail(given.has('length')
      ? `${lengthSeconds} seconds is too long. ${tooLong} Give ${lengthFlag} of ${limits.maxAttackSeconds} or less.`
      : `${tooLong} ${metadata.name} runs ${lengthSeconds} seconds by default, so give ${lengthFlag} of ${limits.maxAttackSeconds} or less.`);
  }

  return { type: metadata.name, args, target: targetFromFlags(targets, metadata, fail), team, yes, lengthSeconds };
}

function targetFromFlags(flags: Map<string, string>, metadata: InfraAttackMetadata, fail: (message: string) => UserInputError): AttackTarget {
  const kinds = givenTargetKinds((flag) => flags.has(flag));
  if (kinds.length > 1) {
    throw fail(`Use one target flag, not ${kinds.map((k) => code(targetFlags[k].flag)).join(' and ')}: ${attackUsage.targetFlags}.`);
  }
  const kind = kinds[0];
  const countText = flags.get(targetCountFlag);
  let count: number | undefined;
  if (countText !== undefined) {
    if (kind !== 'tags' && kind !== 'labels') {
      throw fail(`${code(targetCountFlag)} picks that many random clients among those matching ${code(targetFlags.tags.flag)} or ${code(targetFlags.labels.flag)}; ${kind ? `it does not go with ${code(targetFlags[kind].flag)}` : 'add one of them'}.`);
    }
    const parsed = parseCount(countText);
    if ('problem' in parsed) throw fail(`${quoted(countText)} is not a valid value for ${code(targetCountFlag)}. ${parsed.problem}`);
    count = parsed.count;
  }
  if (kind === undefined) return { kind: 'all' };
  const { flag } = targetFlags[kind];
  const text = flags.get(flag)!;
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
      return kind === 'tags' ? { kind: 'tags', tags: parsed.pairs, ...exact } : { kind: 'labels', labels: parsed.pairs, ...exact };
    }
    case 'service': {
      if (!runsOnServices(metadata.name)) throw fail(`${metadata.name} attacks cannot target a service; use hosts, containers, tags or labels.`);
      const serviceId = text.trim();
      if (serviceId === '') throw fail(`${code(flag)} needs a service id.`);
      return { kind: 'service', serviceId };
    }
  }
}
