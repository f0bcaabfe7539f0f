import type { InputBlock, PlainTextOption } from '@slack/types';
import type { InfraAttackArg, InfraAttackMetadata } from '../../client/catalogue.ts';
import { argRange, defaultLength, flagOf } from '../../attacks/catalogue.ts';
import { input, isNumber, limits, plain, plural, textInput } from '../blocks.ts';
import { teamSelect, type TeamChoice } from '../login/team.ts';

export const ATTACK_BUILDER_VIEW = 'attack_builder';
export const builderTitle = 'Start an attack';

/**
 * Block and action ids of the builder; each input uses the same id for both, so a submission's
 * value (by action id) and a field error (by block id) name the same field.
 */
export const ATTACK_TYPE_SELECT = 'attack_type';
export const ATTACK_LENGTH = 'attack_length';
export const ATTACK_TARGET_KIND = 'attack_target_kind';
export const ATTACK_TARGET_VALUES = 'attack_target_values';
export const ATTACK_TARGET_COUNT = 'attack_target_count';
/** A share of the targets: the sampling of a service, or of the Kubernetes objects named. */
export const ATTACK_TARGET_PERCENT = 'attack_target_percent';
/** A service's "include new targets" checkbox. */
export const ATTACK_INCLUDE_NEW = 'attack_include_new';
/** Guards, typed as the command takes them: `a:1234567, b:CheckoutErrorRate`. */
export const ATTACK_GUARDS = 'attack_guards';
export const ATTACK_TEAM = 'attack_team';
/** Where the card goes, asked only when the builder was not opened from a channel (App Home). */
export const ATTACK_CHANNEL = 'attack_channel';
/** A name to keep the built attack under, for `run <name>` and game-day steps. */
export const ATTACK_SAVE_AS = 'attack_save_as';
export const ATTACK_ARG_PREFIX = 'attack_arg:';

/**
 * The block and action id of one argument input. The type is part of it so that switching types
 * never carries a value into a field of the same name but another kind (protocol of blackhole
 * has ICMP, that of dns does not).
 */
export function attackArgId(type: string, argName: string): string {
  return `${ATTACK_ARG_PREFIX}${type}:${argName}`;
}

/** The value a Boolean argument's checkbox submits when ticked. */
export const CHECKED = 'true';

export const builderTargetKinds = ['all', 'tags', 'hosts', 'containers', 'labels', 'service', 'kubernetes'] as const;
export type BuilderTargetKind = (typeof builderTargetKinds)[number];

export function isBuilderTargetKind(value: string | undefined): value is BuilderTargetKind {
  return (builderTargetKinds as readonly (string | undefined)[]).includes(value);
}

/** Argument names of the platform's metadata that do not read as words once capitalised. */
const argWords: Record<string, string> = {
  ms: 'Milliseconds',
  ipaddresses: 'IP addresses',
  hostnames: 'Host names',
  dir: 'Directory',
  block_ntp: 'Block NTP',
};

/** An argument's name as a field label: `remote_ports` → "Remote ports", `ms` → "Milliseconds". */
const humanName = (name: string) =>
  Object.hasOwn(argWords, name) ? argWords[name]! : name.charAt(0).toUpperCase() + name.slice(1).replace(/_/g, ' ');

export function argInput(type: string, arg: InfraAttackArg, value: string | undefined): InputBlock {
  const id = attackArgId(type, arg.name);
  const hasDefault = arg.default !== null && arg.default !== undefined && arg.type !== 'Boolean';
  const hint = [
    arg.info ? `${arg.info}.` : '',
    hasDefault ? `Default: ${arg.default}.` : '',
    arg.multiple ? 'Separate several with commas.' : '',
  ]
    .filter(Boolean)
    .join(' ');
  const label = `${humanName(arg.name)} (${flagOf(arg)})`;
  const options = { optional: !arg.required, ...(hint ? { hint } : {}) };
  const placeholder = hasDefault ? plain(String(arg.default), 150) : undefined;
  const withPlaceholder = placeholder ? { placeholder } : {};
  if (arg.type === 'Boolean') {
    const checkbox: PlainTextOption = {
      text: plain(arg.info ?? `Set ${flagOf(arg)}`, limits.optionText),
      value: CHECKED,
    };
    return input(
      id,
      label,
      {
        type: 'checkboxes',
        action_id: id,
        options: [checkbox],
        ...(value === CHECKED ? { initial_options: [checkbox] } : {}),
      },
      { optional: true },
    );
  }
  if (
    !arg.multiple &&
    arg.type === 'Enum' &&
    (arg.options ?? []).length > 0 &&
    (arg.options ?? []).length <= limits.selectOptions
  ) {
    const choices = (arg.options ?? []).map(
      (option): PlainTextOption => ({ text: plain(option, limits.optionText), value: option }),
    );
    const initial = choices.find((choice) => choice.value === value);
    return input(
      id,
      label,
      {
        type: 'static_select',
        action_id: id,
        options: choices,
        ...withPlaceholder,
        ...(initial ? { initial_option: initial } : {}),
      },
      options,
    );
  }
  if (!arg.multiple && (arg.type === 'Integer' || arg.type === 'Float')) {
    const decimals = arg.type === 'Float';
    // Slack's client keeps the number within the range; the submission is checked against it too.
    const range = argRange(arg) ?? {};
    const bounds = {
      ...(range.min !== undefined && !range.minExclusive && (decimals || Number.isInteger(range.min))
        ? { min_value: String(range.min) }
        : {}),
      ...(range.max !== undefined && (decimals || Number.isInteger(range.max)) ? { max_value: String(range.max) } : {}),
    };
    return input(
      id,
      label,
      {
        type: 'number_input',
        action_id: id,
        is_decimal_allowed: decimals,
        ...bounds,
        ...withPlaceholder,
        ...(isNumber(value, decimals) ? { initial_value: value } : {}),
      },
      options,
    );
  }
  return input(
    id,
    label,
    {
      type: 'plain_text_input',
      action_id: id,
      ...withPlaceholder,
      ...(value ? { initial_value: value } : {}),
    },
    options,
  );
}

export function lengthInput(
  metadata: InfraAttackMetadata,
  maxAttackSeconds: number,
  value: string | undefined,
): InputBlock {
  const fallback = defaultLength(metadata);
  const hint = `${fallback !== undefined ? `Default: ${plural(fallback, 'second')}. ` : ''}At most ${plural(maxAttackSeconds, 'second')}.`;
  return input(
    ATTACK_LENGTH,
    'Length in seconds',
    {
      type: 'number_input',
      action_id: ATTACK_LENGTH,
      is_decimal_allowed: false,
      min_value: '1',
      max_value: String(maxAttackSeconds),
      ...(fallback !== undefined ? { placeholder: plain(String(fallback), 150) } : {}),
      ...(isNumber(value, false) ? { initial_value: value } : {}),
    },
    { optional: true, hint },
  );
}

export function guardsBlock(value: string | undefined): InputBlock {
  return input(
    ATTACK_GUARDS,
    'Guards',
    textInput(ATTACK_GUARDS, value, { placeholder: 'a:1234567, b:CheckoutErrorRate' }),
    {
      optional: true,
      hint: 'Health signals that halt the attack when they fire: a:<monitor id> for a monitoringA monitor, b:<alert name> for a monitoringB alert, separated by commas.',
    },
  );
}

export function teamBlock(teams: TeamChoice[], current: string | undefined): InputBlock {
  return input(ATTACK_TEAM, 'Team', teamSelect(ATTACK_TEAM, teams, current));
}
