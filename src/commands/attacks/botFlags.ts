import type { InfraAttackMetadata } from '../../client/catalogue.ts';
import { isPathId } from '../../client/index.ts';
import {
  type AttackRequest,
  type AttackTarget,
  givenTargetKinds,
  repeatableTargetFlags,
  runsOnServices,
  targetFlags,
  targetFlagsUsage,
  targetOptionFlags,
  type TargetOption,
} from '../../attacks/request.ts';
import type { Config } from '../../config.ts';
import { UserInputError } from '../../errors.ts';
import { guardKey, type GuardSpec } from '../../guardrails/guards.ts';
import { parseGuard } from '../guardrails/guardFlags.ts';
import { checkFlags, flag, flagSpellings, type Flag, type Flags } from '../contract.ts';
import { code, parseCount, parsePercent, quoted, valuesTarget } from './validate.ts';

/** What a command is checked against besides its type's metadata. */
export interface AttackParseOptions {
  /** MAX_ATTACK_SECONDS: the longest an attack may run. */
  maxAttackSeconds: number;
  /** The company's monitoring integrations, which `--guard` reads through; none configured when absent. */
  monitoring?: Config['monitoring'] | undefined;
  /** The slash command, for messages that name another subcommand. */
  command?: string | undefined;
}

/** A bot flag's name as declared: its long spelling without the dashes. */
const declared = (typed: string) => typed.slice(2);

/**
 * The bot's own flags, which every attack type has besides its own, declared as every other
 * command declares its flags and checked by the same contract; the type's own flags are the
 * platform's and keep their order. `--yes` is only spelt out: a short `-y` could be an attack
 * type's own flag, and then mean "no preview".
 */
export const attackFlags: Flags & { yes: Flag<true>; team: Flag<string>; guard: Flag<string[]> } = {
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

export const botFlags = flagSpellings(attackFlags);

/** The bot flag a word names (`--team`, `--team=x`), or undefined for the type's own flags. */
export const botFlagOf = (name: string) =>
  name.startsWith('--') && Object.hasOwn(attackFlags, declared(name)) ? declared(name) : undefined;

/**
 * Guards as `--guard` takes them, read through the company's integrations, each once; the first
 * that cannot be read is a UserInputError.
 */
export function attackGuards(texts: readonly string[], options: AttackParseOptions): GuardSpec[] {
  const monitoring = options.monitoring ?? { integrationA: undefined, domainA: undefined, uriB: undefined };
  const guards: GuardSpec[] = [];
  for (const text of texts) {
    const spec = parseGuard(text, { monitoring }, options.command ?? '/chaos');
    if (!guards.some((g) => guardKey(g) === guardKey(spec))) guards.push(spec);
  }
  return guards;
}

/**
 * What the bot's flags as typed (a value, `true` for a switch, a list when repeated) ask of the
 * attack: its targets, its guards (each once), its team and whether it skips the preview.
 */
export function botFlagsRequest(
  bot: Record<string, unknown>,
  metadata: InfraAttackMetadata,
  options: AttackParseOptions,
  usage: string,
): Pick<AttackRequest, 'target' | 'team' | 'yes' | 'guards'> {
  const fail = (message: string) => new UserInputError(message, usage);
  const values = checkFlags(attackFlags, bot, usage);
  let guards: GuardSpec[];
  try {
    guards = attackGuards(values.guard ?? [], options);
  } catch (error) {
    if (error instanceof UserInputError) throw fail(`${code('--guard')}: ${error.message}`);
    throw error;
  }
  const targets = new Map(
    [...Object.values(targetFlags), ...Object.values(targetOptionFlags)].flatMap(({ flag: typed }) => {
      const value = values[declared(typed)];
      return value === undefined ? [] : [[typed, value === true ? [''] : [value as string | string[]].flat()] as const];
    }),
  );
  return {
    target: targetFromFlags(targets, metadata, fail),
    team: values.team,
    yes: values.yes === true,
    ...(guards.length ? { guards } : {}),
  };
}

/**
 * The clients an attack runs on, from its target flags as typed (each flag's values in order):
 * one kind of target at most, its options only with the kinds they go with; none is every active
 * client of the team.
 */
function targetFromFlags(
  flags: Map<string, string[]>,
  metadata: InfraAttackMetadata,
  fail: (message: string) => UserInputError,
): AttackTarget {
  const kinds = givenTargetKinds((flag) => flags.has(flag));
  if (kinds.length > 1) {
    throw fail(
      `Use one target flag, not ${kinds.map((k) => code(targetFlags[k].flag)).join(' and ')}: ${targetFlagsUsage}.`,
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
    case 'containers':
    case 'tags':
    case 'labels': {
      const parsed = valuesTarget(kind, [text], { count });
      if ('problem' in parsed) throw bad(parsed.problem);
      return parsed.target;
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
      const parsed = valuesTarget(kind, texts, { count: k8sCount, percent: k8sPercent });
      if ('problem' in parsed) throw fail(`${code(flag)}: ${parsed.problem}`);
      return parsed.target;
    }
  }
}
