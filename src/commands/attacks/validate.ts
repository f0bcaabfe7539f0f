import { isIP } from 'node:net';
import type { InfraAttackArg, InfraAttackMetadata } from '../../client/catalogue.ts';
import {
  type ArgRange,
  argRange,
  defaultLength,
  flagOf,
  inRange,
  largestWholeNumber,
  maxTargetCount,
  spellings,
} from '../../attacks/catalogue.ts';
import { escapeMrkdwn, plural } from '../../views/blocks.ts';
import type { AttackTarget, KubernetesObjectRef, TargetKind } from '../../attacks/request.ts';

/** A value a person typed, quoted for a message; `code` shows it as code. */
export const quoted = (text: string) => `“${escapeMrkdwn(text)}”`;
export const code = (text: string) => `\`${escapeMrkdwn(text)}\``;

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
    case 'Float':
      return numberProblem(arg, value);
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

/**
 * A number within the argument's range (argRange: the metadata's bounds, else general rules).
 * The words name the range, so the person knows what to type instead.
 */
function numberProblem(arg: InfraAttackArg, value: string): string | undefined {
  const whole = arg.type === 'Integer';
  const range = argRange(arg) ?? {};
  const what = whole ? (arg.name === 'length' ? 'a whole number of seconds' : 'a whole number') : 'a number';
  const expected = `${what}${rangeWords(range)}${!whole && inRange(1.5, range) ? ', such as 1.5' : ''}`;
  if (!(whole ? /^-?\d+$/ : /^-?\d+(\.\d+)?$/).test(value)) return expected;
  const number = Number(value);
  if (!inRange(number, range)) return expected;
  // The length has its own, clearer limit (MAX_ATTACK_SECONDS); other whole numbers must fit the agent's.
  if (whole && arg.name !== 'length' && Math.abs(number) > largestWholeNumber)
    return `${expected}, and at most ${largestWholeNumber}`;
  return undefined;
}

/** A range in words, to follow "a whole number": " from 1 to 100", ", at least 1", " greater than 0". */
function rangeWords(range: ArgRange): string {
  const { min, max } = range;
  if (min !== undefined && max !== undefined)
    return range.minExclusive ? ` greater than ${min} and at most ${max}` : ` from ${min} to ${max}`;
  if (min !== undefined) return range.minExclusive ? ` greater than ${min}` : `, at least ${min}`;
  if (max !== undefined) return `, at most ${max}`;
  return '';
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
export function implicitLength(
  metadata: InfraAttackMetadata,
): { args: string[]; seconds: number } | { problem: string } | undefined {
  const length = metadata.args.find((arg) => arg.name === 'length');
  if (!length) return undefined;
  const seconds = defaultLength(metadata);
  if (seconds === undefined) return { problem: `${metadata.name} has no default length: give ${spellings(length)}.` };
  return { args: [flagOf(length), String(seconds)], seconds };
}

/** Why a length breaks the guardrail (MAX_ATTACK_SECONDS), or undefined when it is within it. */
export function lengthProblem(seconds: number | undefined, maxAttackSeconds: number): string | undefined {
  if (seconds === undefined || seconds <= maxAttackSeconds) return undefined;
  return `Attacks may run at most ${plural(maxAttackSeconds, 'second')} here.`;
}

/** Comma-separated ids as typed: trimmed, none empty. */
function parseIdList(text: string): { ids: string[] } | { problem: string } {
  const ids = text.split(',').map((id) => id.trim());
  if (ids.some((id) => id === ''))
    return { problem: 'Give one or more ids separated by single commas, with no empty item.' };
  return { ids };
}

/** `k=v,k2=v2` as a map: keys and values trimmed and non-empty, no key twice. */
function parsePairs(text: string): { pairs: Record<string, string> } | { problem: string } {
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

/** `--target-count`: a whole number of clients, from 1 to maxTargetCount. */
export function parseCount(text: string): { count: number } | { problem: string } {
  const trimmed = text.trim();
  const count = Number(trimmed);
  return /^\d+$/.test(trimmed) && count >= 1 && count <= maxTargetCount
    ? { count }
    : { problem: `Give a whole number of clients, at least 1 and at most ${maxTargetCount}.` };
}

/** A share of targets: a whole percent from 1 to 100. */
export function parsePercent(text: string): { percent: number } | { problem: string } {
  const trimmed = text.trim().replace(/%$/, '');
  const percent = Number(trimmed);
  return /^\d+$/.test(trimmed) && percent >= 1 && percent <= 100
    ? { percent }
    : { problem: 'Give a whole percent, from 1 to 100.' };
}

/**
 * Kubernetes objects as `cluster/namespace/kind/name`, several separated by commas (or given by
 * repeating the flag); the same object twice counts once.
 */
function parseKubernetesObjects(texts: readonly string[]): { objects: KubernetesObjectRef[] } | { problem: string } {
  const objects = new Map<string, KubernetesObjectRef>();
  for (const item of texts.flatMap((text) => text.split(','))) {
    const path = item.trim();
    const parts = path.split('/');
    if (parts.length !== 4 || parts.some((part) => !/^[^\s/]+$/u.test(part))) {
      return {
        problem: `${quoted(path)} is not a Kubernetes object. Write it as cluster/namespace/kind/name, such as acme-prod/checkout/Deployment/checkout.`,
      };
    }
    const [clusterId, namespace, kind, name] = parts as [string, string, string, string];
    objects.set(path, { clusterId, namespace, kind, name });
  }
  return { objects: [...objects.values()] };
}

/**
 * The target of a kind named by its values (ids, key=value pairs or Kubernetes objects, each
 * flag's or field's values in order), narrowed by a count or a percent where the kind takes one;
 * or what is wrong with the values. The command and the builder both read targets through this.
 */
export function valuesTarget(
  kind: Exclude<TargetKind, 'service'>,
  texts: readonly string[],
  narrow: { count?: number | undefined; percent?: number | undefined },
): { target: AttackTarget } | { problem: string } {
  const count = narrow.count !== undefined ? { count: narrow.count } : {};
  if (kind === 'kubernetes') {
    const parsed = parseKubernetesObjects(texts);
    if ('problem' in parsed) return parsed;
    const percent = narrow.percent !== undefined ? { percent: narrow.percent } : {};
    return { target: { kind, objects: parsed.objects, ...count, ...percent } };
  }
  if (kind === 'hosts' || kind === 'containers') {
    const parsed = parseIdList(texts[0] ?? '');
    return 'problem' in parsed ? parsed : { target: { kind, ids: parsed.ids } };
  }
  const parsed = parsePairs(texts[0] ?? '');
  if ('problem' in parsed) return parsed;
  return {
    target: kind === 'tags' ? { kind, tags: parsed.pairs, ...count } : { kind, labels: parsed.pairs, ...count },
  };
}
