import type { InfraAttackMetadata } from '../../client/catalogue.ts';
import { type AttackRequest, repeatableTargetFlags, targetFlags, targetOptionFlags } from '../../attacks/request.ts';
import type { Config } from '../../config.ts';
import { UserInputError } from '../../errors.ts';
import { guardKey, type GuardSpec } from '../../guardrails/guards.ts';
import { parseGuard } from '../guardrails/guardFlags.ts';
import { checkFlags, flag, flagSpellings, type Flag, type Flags } from '../contract.ts';
import { targetFromFlags } from './targets.ts';
import { code, type AttackLimits } from './validate.ts';

/** What a command is checked against besides its type's metadata. */
export interface AttackParseOptions extends AttackLimits {
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

/** One guard as `--guard` takes it, read through the company's integrations. */
export const attackGuard = (text: string, options: AttackParseOptions): GuardSpec =>
  parseGuard(
    text,
    { monitoring: options.monitoring ?? { integrationA: undefined, domainA: undefined, uriB: undefined } },
    options.command ?? '/chaos',
  );

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
  const guards: GuardSpec[] = [];
  for (const text of values.guard ?? []) {
    let spec: GuardSpec;
    try {
      spec = attackGuard(text, options);
    } catch (error) {
      if (error instanceof UserInputError) throw fail(`${code('--guard')}: ${error.message}`);
      throw error;
    }
    if (!guards.some((g) => guardKey(g) === guardKey(spec))) guards.push(spec);
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
