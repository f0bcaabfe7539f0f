import type { KnownBlock, PlainTextOption } from '@slack/types';
import { maxTargetCount } from '../../attacks/catalogue.ts';
import { input, isNumber, limits, plain, textInput } from '../blocks.ts';
import {
  ATTACK_INCLUDE_NEW,
  ATTACK_TARGET_COUNT,
  ATTACK_TARGET_KIND,
  ATTACK_TARGET_PERCENT,
  ATTACK_TARGET_VALUES,
  type BuilderTargetKind,
  builderTargetKinds,
  CHECKED,
} from './builderFields.ts';

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

/** The target fields: the kind of target, then the fields that kind asks for. */
export function targetBlocks(
  kind: BuilderTargetKind | undefined,
  values: Record<string, string | undefined>,
): KnownBlock[] {
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
  blocks.push(
    input(
      ATTACK_TARGET_VALUES,
      field.label,
      textInput(ATTACK_TARGET_VALUES, values[ATTACK_TARGET_VALUES], { placeholder: field.placeholder }),
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
