import type { InputBlock, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { InfraAttackArg, InfraAttackMetadata } from '../../client/catalogue.ts';
import { argRange, maxTargetCount } from '../../attacks/argRange.ts';
import { defaultLength, findAttackType, flagOf, groupedTypes } from '../../attacks/attackTypes.ts';
import { context, input, limits, modal, plain } from '../blocks.ts';
import { agree, plural } from '../plural.ts';
import { teamOption, type TeamChoice } from '../login/team.ts';

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

const targetKindText: Record<BuilderTargetKind, string> = {
  all: 'Every active client of the team',
  tags: 'Random hosts, by tags',
  hosts: 'Exact hosts',
  containers: 'Exact containers',
  labels: 'Containers, by label',
  service: 'A service',
  kubernetes: 'Kubernetes objects',
};

const targetValuesField: Record<
  Exclude<BuilderTargetKind, 'all'>,
  { label: string; hint: string; placeholder: string }
> = {
  tags: {
    label: 'Tags',
    hint: 'key=value pairs separated by commas, such as role=web, zone=us-east-1a. Hosts must have every tag.',
    placeholder: 'role=web, zone=us-east-1a',
  },
  hosts: {
    label: 'Host ids',
    hint: 'Host identifiers separated by commas.',
    placeholder: 'platform-web-1, platform-web-2',
  },
  containers: {
    label: 'Container ids',
    hint: 'Container identifiers separated by commas.',
    placeholder: 'checkout-1, checkout-2',
  },
  labels: {
    label: 'Labels',
    hint: 'key=value pairs separated by commas, such as app=checkout. Containers must have every label.',
    placeholder: 'app=checkout',
  },
  service: {
    label: 'Service id',
    hint: 'The id of the service, as the platform shows it. Only some attack types run on services.',
    placeholder: 'the service id',
  },
  kubernetes: {
    label: 'Kubernetes objects',
    hint: 'cluster/namespace/kind/name, several separated by commas.',
    placeholder: 'acme-prod/checkout/Deployment/checkout',
  },
};

export function isBuilderTargetKind(value: string | undefined): value is BuilderTargetKind {
  return (builderTargetKinds as readonly (string | undefined)[]).includes(value);
}

export interface AttackBuilderOptions {
  catalogue: readonly InfraAttackMetadata[];
  selectedType?: string | undefined;
  teams: TeamChoice[];
  currentTeam?: string | undefined;
  /** Values to show again, by action id (as a submission or block action carries them). */
  values?: Record<string, string | undefined> | undefined;
  maxAttackSeconds: number;
  privateMetadata?: string | undefined;
  /** Ask for the channel the attack's card goes to. */
  askChannel?: boolean | undefined;
  /** Offer the Guards field: only when a monitoring integration is configured to read them through. */
  askGuards?: boolean | undefined;
}

function typeOption(metadata: InfraAttackMetadata): PlainTextOption {
  const option: PlainTextOption = { text: plain(metadata.name, limits.optionText), value: metadata.name };
  if (metadata.info) option.description = plain(metadata.info, limits.optionText);
  return option;
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
const isNumber = (text: string | undefined, decimals: boolean): text is string =>
  text !== undefined && (decimals ? /^-?\d+(\.\d+)?$/ : /^-?\d+$/).test(text);

function argInput(type: string, arg: InfraAttackArg, value: string | undefined): InputBlock {
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

function lengthInput(metadata: InfraAttackMetadata, maxAttackSeconds: number, value: string | undefined): InputBlock {
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

function targetBlocks(kind: BuilderTargetKind | undefined, values: Record<string, string | undefined>): KnownBlock[] {
  const kindOptions = builderTargetKinds.map(
    (k): PlainTextOption => ({ text: plain(targetKindText[k], limits.optionText), value: k }),
  );
  const initialKind = kindOptions.find((option) => option.value === kind);
  const blocks: KnownBlock[] = [
    input(
      ATTACK_TARGET_KIND,
      'Target',
      {
        type: 'radio_buttons',
        action_id: ATTACK_TARGET_KIND,
        options: kindOptions,
        ...(initialKind ? { initial_option: initialKind } : {}),
      },
      { dispatch: true },
    ),
  ];
  if (kind === 'all') return blocks;
  const field = kind
    ? targetValuesField[kind]
    : {
        label: 'Target values',
        hint: 'For tags and labels: key=value pairs such as role=web, zone=us-east-1a. For hosts and containers: ids separated by commas.',
        placeholder: 'role=web',
      };
  const typed = values[ATTACK_TARGET_VALUES];
  blocks.push(
    input(
      ATTACK_TARGET_VALUES,
      field.label,
      {
        type: 'plain_text_input',
        action_id: ATTACK_TARGET_VALUES,
        placeholder: plain(field.placeholder, 150),
        ...(typed ? { initial_value: typed } : {}),
      },
      { optional: true, hint: field.hint },
    ),
  );
  if (kind === undefined || kind === 'tags' || kind === 'labels' || kind === 'kubernetes') {
    const count = values[ATTACK_TARGET_COUNT];
    blocks.push(
      input(
        ATTACK_TARGET_COUNT,
        'How many, picked at random',
        {
          type: 'number_input',
          action_id: ATTACK_TARGET_COUNT,
          is_decimal_allowed: false,
          min_value: '1',
          max_value: String(maxTargetCount),
          ...(isNumber(count, false) ? { initial_value: count } : {}),
        },
        {
          optional: true,
          hint:
            kind === 'kubernetes'
              ? 'Leave empty to act on every object named, or give a percent below instead.'
              : 'Only with tags or labels. Leave empty to hit every matching client.',
        },
      ),
    );
  }
  if (kind === 'service' || kind === 'kubernetes') {
    const percent = values[ATTACK_TARGET_PERCENT];
    blocks.push(
      input(
        ATTACK_TARGET_PERCENT,
        kind === 'service' ? 'Sample percent' : 'Percent, picked at random',
        {
          type: 'number_input',
          action_id: ATTACK_TARGET_PERCENT,
          is_decimal_allowed: false,
          min_value: '1',
          max_value: '100',
          ...(isNumber(percent, false) ? { initial_value: percent } : {}),
        },
        {
          optional: true,
          hint:
            kind === 'service'
              ? "Attack a random share of the service's targets. Leave empty to attack all of them."
              : 'A random share of the objects named, instead of a count.',
        },
      ),
    );
  }
  if (kind === 'service') {
    const option: PlainTextOption = {
      text: plain('Also attack targets that join the service while it runs', limits.optionText),
      value: CHECKED,
    };
    blocks.push(
      input(
        ATTACK_INCLUDE_NEW,
        'New targets',
        {
          type: 'checkboxes',
          action_id: ATTACK_INCLUDE_NEW,
          options: [option],
          ...(values[ATTACK_INCLUDE_NEW] === CHECKED ? { initial_options: [option] } : {}),
        },
        { optional: true },
      ),
    );
  }
  return blocks;
}

function guardsBlock(value: string | undefined): InputBlock {
  return input(
    ATTACK_GUARDS,
    'Guards',
    {
      type: 'plain_text_input',
      action_id: ATTACK_GUARDS,
      placeholder: plain('a:1234567, b:CheckoutErrorRate', 150),
      ...(value ? { initial_value: value } : {}),
    },
    {
      optional: true,
      hint: 'Health signals that halt the attack when they fire: a:<monitor id> for a monitoringA monitor, b:<alert name> for a monitoringB alert, separated by commas.',
    },
  );
}

function teamBlock(teams: TeamChoice[], current: string | undefined): InputBlock {
  const sorted = [...teams].sort((a, b) => a.name.localeCompare(b.name));
  const initial = teams.find((team) => team.id === current);
  const initialOption = initial ? { initial_option: teamOption(initial) } : {};
  // Beyond 100 teams Slack needs an external select, answered by the team options handler.
  const element =
    sorted.length <= limits.selectOptions
      ? {
          type: 'static_select' as const,
          action_id: ATTACK_TEAM,
          placeholder: plain('Choose a team'),
          options: sorted.map(teamOption),
          ...initialOption,
        }
      : {
          type: 'external_select' as const,
          action_id: ATTACK_TEAM,
          placeholder: plain('Type to search your teams'),
          min_query_length: 0,
          ...initialOption,
        };
  return input(ATTACK_TEAM, 'Team', element);
}

/**
 * The attack builder. Choosing a type (ATTACK_TYPE_SELECT) or a target kind (ATTACK_TARGET_KIND)
 * dispatches an action, so the handler can rebuild the modal with that type's own arguments and
 * the matching target fields, passing the current values back in `values`.
 */
export function attackBuilderModal(options: AttackBuilderOptions): ModalView {
  const values = options.values ?? {};
  const metadata = options.selectedType ? findAttackType(options.catalogue, options.selectedType) : undefined;
  const typeOptions = groupedTypes(options.catalogue).map(({ group, types }) => ({
    label: plain(group, limits.optionText),
    options: types.slice(0, limits.selectOptions).map(typeOption),
  }));
  const blocks: KnownBlock[] = [
    input(
      ATTACK_TYPE_SELECT,
      'Attack type',
      {
        type: 'static_select',
        action_id: ATTACK_TYPE_SELECT,
        placeholder: plain('Choose an attack type'),
        option_groups: typeOptions,
        ...(metadata ? { initial_option: typeOption(metadata) } : {}),
      },
      { dispatch: true },
    ),
  ];

  const tail: KnownBlock[] = [
    ...targetBlocks(isBuilderTargetKind(values[ATTACK_TARGET_KIND]) ? values[ATTACK_TARGET_KIND] : undefined, values),
    ...(options.askGuards ? [guardsBlock(values[ATTACK_GUARDS])] : []),
    ...(options.teams.length > 0 ? [teamBlock(options.teams, options.currentTeam)] : []),
    ...(options.askChannel
      ? [
          input(
            ATTACK_CHANNEL,
            'Channel for its card',
            {
              type: 'conversations_select',
              action_id: ATTACK_CHANNEL,
              filter: { include: ['public', 'private'], exclude_bot_users: true },
              ...(values[ATTACK_CHANNEL] ? { initial_conversation: values[ATTACK_CHANNEL] } : {}),
            },
            { hint: 'The attack card, with its Halt button, is posted there. Faultline must be in the channel.' },
          ),
        ]
      : []),
    input(
      ATTACK_SAVE_AS,
      'Save as',
      {
        type: 'plain_text_input',
        action_id: ATTACK_SAVE_AS,
        max_length: 40,
        placeholder: plain('checkout-cpu', 150),
        ...(values[ATTACK_SAVE_AS] ? { initial_value: values[ATTACK_SAVE_AS] } : {}),
      },
      {
        optional: true,
        hint: 'Keeps this attack for the team under the name, to run again with the run command or in a game-day plan.',
      },
    ),
  ];
  const closing = context(
    options.askChannel
      ? 'Submitting shows a preview here first: nothing starts until you press Start.'
      : 'Submitting shows a preview in the channel first: nothing starts until you press Start.',
  );

  if (!metadata) {
    blocks.push(context('Choose a type to see its own flags.'));
  } else {
    if (metadata.args.some((arg) => arg.name === 'length'))
      blocks.push(lengthInput(metadata, options.maxAttackSeconds, values[ATTACK_LENGTH]));
    const own = metadata.args.filter((arg) => arg.name !== 'length');
    // Keep room for the target, team and closing blocks; types with more flags than fit are rare.
    const room = limits.viewBlocks - blocks.length - tail.length - 2;
    for (const arg of own.slice(0, room))
      blocks.push(argInput(metadata.name, arg, values[attackArgId(metadata.name, arg.name)]));
    if (own.length > room)
      blocks.push(
        context(
          `${plural(own.length - room, 'more flag')} of ${metadata.name} ${agree(own.length - room, 'does', 'do')} not fit here; use the slash command.`,
        ),
      );
  }
  blocks.push(...tail, closing);

  return modal(ATTACK_BUILDER_VIEW, builderTitle, blocks, {
    submit: 'Preview',
    close: 'Cancel',
    ...(options.privateMetadata !== undefined ? { privateMetadata: options.privateMetadata } : {}),
  });
}
