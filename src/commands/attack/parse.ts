import { isIP } from 'node:net';
import type { InfraAttackArg, InfraAttackMetadata } from '../../client/catalogue.ts';
import { escapeMrkdwn } from '../../views/blocks.ts';
import { availableTypes, defaultLength, findAttackType, flagOf, spellings } from '../../attacks/attackTypes.ts';
import { runsOnServices, type AttackRequest, type AttackTarget } from '../../attacks/request.ts';
import { UserInputError } from '../../errors.ts';

export interface AttackLimits {
  /** MAX_ATTACK_SECONDS: the longest an attack may run. */
  maxAttackSeconds: number;
}

/** Usage lines, without the slash command (describeError puts it in front). */
export const attackUsage = {
  general: 'attack <type> [attack flags] [target flags] [--team T] [--yes]',
  targetFlags:
    '--target-hosts a,b | --target-containers a,b | --target-tags k=v,… | --target-labels k=v,… | --target-service ID, and --target-count N with tags or labels',
  /** `attack cpu [-l length] …` from the type's metadata, then the bot's own flags. */
  forType(metadata: InfraAttackMetadata): string {
    const own = metadata.usage?.trim() || [metadata.name, ...metadata.args.map(argUsage)].join(' ');
    return `attack ${own} [target flags] [--team T] [--yes]`;
  },
} as const;

function argUsage(arg: InfraAttackArg): string {
  const text = arg.type === 'Boolean' ? flagOf(arg) : `${flagOf(arg)} ${arg.name}`;
  return arg.required ? text : `[${text}]`;
}

/**
 * Splits command text into words the way a shell would for plain quoting: "a b" and 'a b' keep
 * their spaces, quotes next to other characters join them (`--dir="/my dir"`). Only straight
 * quotes count; the caller straightens the curly ones Slack substitutes.
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let current = '';
  let inToken = false;
  let quote: '"' | "'" | undefined;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inToken = true;
    } else if (/\s/.test(char)) {
      if (inToken) tokens.push(current);
      current = '';
      inToken = false;
    } else {
      current += char;
      inToken = true;
    }
  }
  if (quote) throw new UserInputError(`A ${quote === '"' ? 'double' : 'single'} quote is not closed.`, attackUsage.general);
  if (inToken) tokens.push(current);
  return tokens;
}

/** A value a person typed, quoted for a message. */
const quoted = (text: string) => `“${escapeMrkdwn(text)}”`;
const code = (text: string) => `\`${escapeMrkdwn(text)}\``;

/** What a valid value of an argument looks like, in words, or undefined when `value` is one. */
export function valueProblem(arg: InfraAttackArg, value: string): string | undefined {
  if (arg.multiple) {
    const items = value.split(',').map((item) => item.trim());
    if (items.some((item) => item === '')) return 'one or more values separated by single commas';
    const bad = items.find((item) => singleValueProblem(arg, item) !== undefined);
    return bad === undefined ? undefined : `${singleValueProblem(arg, bad)}, or several separated by commas`;
  }
  return singleValueProblem(arg, value);
}

function singleValueProblem(arg: InfraAttackArg, value: string): string | undefined {
  switch (arg.type) {
    case 'Integer':
      if (arg.name === 'length') return /^\d+$/.test(value) && Number(value) >= 1 ? undefined : 'a whole number of seconds, at least 1';
      return /^-?\d+$/.test(value) ? undefined : 'a whole number';
    case 'Float':
      return /^-?\d+(\.\d+)?$/.test(value) ? undefined : 'a number, such as 1.5';
    case 'IP':
      return isIpOrCidr(value) ? undefined : 'an IP address or CIDR block, such as 10.0.0.1 or 10.0.0.0/8';
    case 'Enum': {
      const options = arg.options ?? [];
      return options.includes(value) ? undefined : `one of ${options.join(', ')}`;
    }
    case 'URL':
      return isWebUrl(value) ? undefined : 'an http or https URL';
    default:
      return value.trim() !== '' ? undefined : 'a value that is not empty';
  }
}

function isIpOrCidr(value: string): boolean {
  const [address = '', prefix, ...rest] = value.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
}

function isWebUrl(value: string): boolean {
  const url = URL.parse(value);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:');
}

/**
 * The length flag to add when none was typed: the metadata's default, sent explicitly, so that
 * what runs is what was previewed and checked against the guardrail (the platform's own default
 * may differ from a built-in catalogue's). Undefined when the type has no length; an error text
 * when it has one but no default, so the person must give it.
 */
export function implicitLength(metadata: InfraAttackMetadata): { args: string[]; seconds: number } | { problem: string } | undefined {
  const length = metadata.args.find((arg) => arg.name === 'length');
  if (!length) return undefined;
  const seconds = defaultLength(metadata);
  if (seconds === undefined) return { problem: `${metadata.name} has no default length: give ${spellings(length)}.` };
  return { args: [flagOf(length), String(seconds)], seconds };
}

/** Why a length breaks the guardrail, or undefined when it is within it. */
export function lengthProblem(seconds: number | undefined, limits: AttackLimits): string | undefined {
  if (seconds === undefined || seconds <= limits.maxAttackSeconds) return undefined;
  return `Attacks may run at most ${limits.maxAttackSeconds} seconds here.`;
}

/** Comma-separated ids as typed: trimmed, none empty. */
export function parseIdList(text: string): { ids: string[] } | { problem: string } {
  const ids = text.split(',').map((id) => id.trim());
  if (ids.some((id) => id === '')) return { problem: 'Give one or more ids separated by single commas, with no empty item.' };
  return { ids };
}

/** `k=v,k2=v2` as a map: keys and values trimmed and non-empty, no key twice. */
export function parsePairs(text: string): { pairs: Record<string, string> } | { problem: string } {
  const entries = new Map<string, string>();
  for (const item of text.split(',')) {
    const at = item.indexOf('=');
    const key = item.slice(0, at).trim();
    const value = item.slice(at + 1).trim();
    if (at < 0 || key === '' || value === '') {
      return { problem: `${quoted(item.trim())} is not a key=value pair. Write them like role=web,zone=us-east-1a.` };
    }
    if (entries.has(key)) return { problem: `${quoted(key)} is given twice; each key can have one value.` };
    entries.set(key, value);
  }
  // fromEntries defines own properties, so a key such as __proto__ stays an ordinary key.
  return { pairs: Object.fromEntries(entries) };
}

/** `--target-count`: a positive whole number. */
export function parseCount(text: string): { count: number } | { problem: string } {
  const trimmed = text.trim();
  return /^\d+$/.test(trimmed) && Number(trimmed) >= 1 ? { count: Number(trimmed) } : { problem: 'Give a whole number of clients, at least 1.' };
}

const targetKindFlags = ['--target-hosts', '--target-containers', '--target-tags', '--target-labels', '--target-service'] as const;
type TargetKindFlag = (typeof targetKindFlags)[number];
const countFlag = '--target-count';

function isTargetKindFlag(name: string): name is TargetKindFlag {
  return (targetKindFlags as readonly string[]).includes(name);
}

/** A flag as typed: its name (`-l`, `--length`) and a value given with `=`, if any. */
function splitFlag(token: string): { name: string; inline: string | undefined } | undefined {
  const match = /^(--[^=\s]+|-[A-Za-z])(?:=([\s\S]*))?$/.exec(token);
  return match ? { name: match[1]!, inline: match[2] } : undefined;
}

/** Whether the word after a flag is another flag rather than its value (`-5` is a value). */
const looksLikeFlag = (word: string) => /^--?[A-Za-z]/.test(word);

function findArg(metadata: InfraAttackMetadata, name: string): InfraAttackArg | undefined {
  if (name.startsWith('--')) return metadata.args.find((arg) => `--${arg.long ?? arg.name}` === name);
  return metadata.args.find((arg) => arg.short !== null && arg.short !== undefined && `-${arg.short}` === name);
}

/**
 * Turns the text after `attack` into a checked AttackRequest, or throws a UserInputError that
 * says what is wrong and carries the usage line. Attack flags keep their order and the form they
 * were typed in, because the platform runs them as the command line the person wrote.
 */
export function parseAttackCommand(rest: string, catalogue: readonly InfraAttackMetadata[], limits: AttackLimits): AttackRequest {
  const [typeWord, ...words] = tokenize(rest);
  if (typeWord === undefined) {
    throw new UserInputError(`Name the attack type to run. Available: ${availableTypes(catalogue)}.`, attackUsage.general);
  }
  if (typeWord.startsWith('-')) {
    throw new UserInputError(`Start with the attack type, then its flags. Available: ${availableTypes(catalogue)}.`, attackUsage.general);
  }
  const metadata = findAttackType(catalogue, typeWord);
  if (!metadata) {
    throw new UserInputError(`${quoted(typeWord)} is not an attack type. Available: ${availableTypes(catalogue)}.`, attackUsage.general);
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
      throw fail(`Unexpected word ${quoted(word)}: ${why}.`);
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
    if (isTargetKindFlag(flag.name) || flag.name === countFlag) {
      if (targets.has(flag.name)) throw fail(`${code(flag.name)} is given more than once.`);
      targets.set(flag.name, takeValue());
      continue;
    }

    const arg = findArg(metadata, flag.name);
    if (!arg) {
      const valid = flag.name.startsWith('--target')
        ? `Target flags: ${attackUsage.targetFlags}.`
        : `Flags of ${metadata.name}: ${metadata.args.map(spellings).join(', ') || 'none'}.`;
      throw fail(`${quoted(flag.name)} is not a flag of ${metadata.name}. ${valid}`);
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
  const kinds = targetKindFlags.filter((name) => flags.has(name));
  if (kinds.length > 1) {
    throw fail(`Use one target flag, not ${kinds.map(code).join(' and ')}: ${attackUsage.targetFlags}.`);
  }
  const kind = kinds[0];
  const countText = flags.get(countFlag);
  let count: number | undefined;
  if (countText !== undefined) {
    if (kind !== '--target-tags' && kind !== '--target-labels') {
      throw fail(`\`--target-count\` picks that many random clients among those matching \`--target-tags\` or \`--target-labels\`; ${kind ? `it does not go with ${code(kind)}` : 'add one of them'}.`);
    }
    const parsed = parseCount(countText);
    if ('problem' in parsed) throw fail(`${quoted(countText)} is not a valid value for \`--target-count\`. ${parsed.problem}`);
    count = parsed.count;
  }
  if (kind === undefined) return { kind: 'all' };
  const text = flags.get(kind)!;
  const bad = (problem: string) => fail(`${code(kind)} ${quoted(text)}: ${problem}`);
  switch (kind) {
    case '--target-hosts':
    case '--target-containers': {
      const parsed = parseIdList(text);
      if ('problem' in parsed) throw bad(parsed.problem);
      return kind === '--target-hosts' ? { kind: 'hosts', ids: parsed.ids } : { kind: 'containers', ids: parsed.ids };
    }
    case '--target-tags':
    case '--target-labels': {
      const parsed = parsePairs(text);
      if ('problem' in parsed) throw bad(parsed.problem);
      const exact = count !== undefined ? { count } : {};
      return kind === '--target-tags' ? { kind: 'tags', tags: parsed.pairs, ...exact } : { kind: 'labels', labels: parsed.pairs, ...exact };
    }
    case '--target-service': {
      if (!runsOnServices(metadata.name)) throw fail(`${metadata.name} attacks cannot target a service; use hosts, containers, tags or labels.`);
      const serviceId = text.trim();
      if (serviceId === '') throw fail('`--target-service` needs a service id.');
      return { kind: 'service', serviceId };
    }
  }
}
