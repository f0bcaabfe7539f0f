import type { InfraAttackMetadata } from '../../client/catalogue.ts';
import {
  ATTACK_GUARDS,
  ATTACK_INCLUDE_NEW,
  ATTACK_LENGTH,
  ATTACK_TARGET_COUNT,
  ATTACK_TARGET_KIND,
  ATTACK_TARGET_PERCENT,
  ATTACK_TARGET_VALUES,
  ATTACK_TEAM,
  ATTACK_TYPE_SELECT,
  CHECKED,
  attackArgId,
  isBuilderTargetKind,
} from '../../views/attacks/builderFields.ts';
import { defaultLength, findAttackType, flagOf } from '../../attacks/catalogue.ts';
import { implicitLength, lengthProblem, parseCount, parsePercent, valueProblem, valuesTarget } from './validate.ts';
import { runsOnServices, type AttackRequest, type AttackTarget } from '../../attacks/request.ts';
import type { GuardSpec } from '../../guardrails/guards.ts';
import { UserInputError } from '../../errors.ts';
import { isPathId } from '../../client/index.ts';
import { attackGuards, type AttackParseOptions } from './botFlags.ts';

/** Field errors by block id, for a view submission's `response_action: errors`. */
export type BuilderErrors = { errors: Record<string, string> };

const filled = (text: string | undefined): string | undefined => {
  const trimmed = text?.trim();
  return trimmed ? trimmed : undefined;
};

/**
 * Turns the builder's submitted values (by action id) into the AttackRequest that the equivalent
 * slash command gives: the type's flags in metadata order, each by its short form when it has
 * one. Anything wrong comes back as errors on the fields, so the modal stays open.
 */
export function builderToRequest(
  inputs: Record<string, string | undefined>,
  catalogue: readonly InfraAttackMetadata[],
  limits: AttackParseOptions,
): AttackRequest | BuilderErrors {
  const errors: Record<string, string> = {};
  const typeName = filled(inputs[ATTACK_TYPE_SELECT]);
  const metadata = typeName ? findAttackType(catalogue, typeName) : undefined;
  if (!metadata) {
    errors[ATTACK_TYPE_SELECT] = typeName
      ? `${typeName} is no longer an attack type here; choose another.`
      : 'Choose an attack type.';
    return { errors };
  }

  const args: string[] = [];
  let lengthSeconds = defaultLength(metadata);
  for (const arg of metadata.args) {
    const field = arg.name === 'length' ? ATTACK_LENGTH : attackArgId(metadata.name, arg.name);
    const raw = filled(inputs[field]);
    if (arg.type === 'Boolean') {
      if (raw === CHECKED) args.push(flagOf(arg));
      continue;
    }
    if (raw === undefined) {
      if (arg.required) errors[field] = 'Required.';
      continue;
    }
    // A list typed as "a, b" is sent as "a,b": the spaces are for reading, not part of the values.
    const value = arg.multiple
      ? raw
          .split(',')
          .map((item) => item.trim())
          .join(',')
      : raw;
    const expected = valueProblem(arg, value);
    if (expected) {
      errors[field] = `Expected ${expected}.`;
      continue;
    }
    args.push(flagOf(arg), value);
    if (arg.name === 'length') lengthSeconds = Number(value);
  }

  if (!filled(inputs[ATTACK_LENGTH])) {
    const implicit = implicitLength(metadata);
    if (implicit && 'problem' in implicit) errors[ATTACK_LENGTH] = implicit.problem;
    else if (implicit) args.push(...implicit.args);
  }

  const tooLong = lengthProblem(lengthSeconds, limits.maxAttackSeconds);
  if (tooLong && !errors[ATTACK_LENGTH]) {
    const lengthField = metadata.args.some((arg) => arg.name === 'length') ? ATTACK_LENGTH : ATTACK_TYPE_SELECT;
    errors[lengthField] = filled(inputs[ATTACK_LENGTH])
      ? tooLong
      : `${tooLong} ${metadata.name} runs ${lengthSeconds} seconds by default; enter a shorter length.`;
  }

  const target = targetFromInputs(inputs, errors);
  if (target?.kind === 'service' && !runsOnServices(metadata.name))
    errors[ATTACK_TARGET_KIND] = `${metadata.name} attacks cannot target a service; choose another target.`;
  const guards = guardsFromInput(inputs[ATTACK_GUARDS], limits, errors);
  if (Object.keys(errors).length > 0 || !target) return { errors };
  return {
    type: metadata.name,
    args,
    target,
    team: filled(inputs[ATTACK_TEAM]),
    yes: false,
    lengthSeconds,
    ...(guards.length ? { guards } : {}),
  };
}

/** The Guards field: guards separated by commas, each as `--guard` takes it. */
function guardsFromInput(
  text: string | undefined,
  options: AttackParseOptions,
  errors: Record<string, string>,
): GuardSpec[] {
  const items = (filled(text) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  try {
    return attackGuards(items, options);
  } catch (error) {
    if (!(error instanceof UserInputError)) throw error;
    // A field error is plain text: no code marks.
    errors[ATTACK_GUARDS] = error.message.replace(/`/g, '');
    return [];
  }
}

function targetFromInputs(
  inputs: Record<string, string | undefined>,
  errors: Record<string, string>,
): AttackTarget | undefined {
  const kind = inputs[ATTACK_TARGET_KIND];
  if (!isBuilderTargetKind(kind)) {
    errors[ATTACK_TARGET_KIND] = 'Choose what to attack.';
    return undefined;
  }
  const text = filled(inputs[ATTACK_TARGET_VALUES]);
  const countText = filled(inputs[ATTACK_TARGET_COUNT]);
  let count: number | undefined;
  if (countText !== undefined) {
    if (kind !== 'tags' && kind !== 'labels' && kind !== 'kubernetes') {
      errors[ATTACK_TARGET_COUNT] =
        'A count only goes with random hosts by tags, containers by label or Kubernetes objects; clear it or change the target.';
    } else {
      const parsed = parseCount(countText);
      if ('problem' in parsed) errors[ATTACK_TARGET_COUNT] = parsed.problem;
      else count = parsed.count;
    }
  }
  const percentText = filled(inputs[ATTACK_TARGET_PERCENT]);
  let percent: number | undefined;
  if (percentText !== undefined) {
    if (kind !== 'service' && kind !== 'kubernetes') {
      errors[ATTACK_TARGET_PERCENT] =
        'A percent only goes with a service or Kubernetes objects; clear it or change the target.';
    } else if (count !== undefined) {
      errors[ATTACK_TARGET_PERCENT] = 'Give a count or a percent, not both.';
    } else {
      const parsed = parsePercent(percentText);
      if ('problem' in parsed) errors[ATTACK_TARGET_PERCENT] = parsed.problem;
      else percent = parsed.percent;
    }
  }
  if (kind === 'all') {
    // Typed values with "every client" chosen is most likely a slip; hitting everything by mistake is the worst outcome.
    if (text !== undefined)
      errors[ATTACK_TARGET_VALUES] =
        'Every active client is chosen as the target; clear this field or choose another target.';
    return { kind: 'all' };
  }
  if (text === undefined) {
    errors[ATTACK_TARGET_VALUES] = {
      tags: 'Enter one or more key=value pairs.',
      labels: 'Enter one or more key=value pairs.',
      hosts: 'Enter one or more ids.',
      containers: 'Enter one or more ids.',
      service: 'Enter the id of the service.',
      kubernetes: 'Enter one or more objects as cluster/namespace/kind/name.',
    }[kind];
    return undefined;
  }
  if (kind === 'service') {
    if (/[\s,]/.test(text)) {
      errors[ATTACK_TARGET_VALUES] = 'Enter one service id, without spaces or commas.';
      return undefined;
    }
    if (!isPathId(text)) {
      errors[ATTACK_TARGET_VALUES] =
        "A service id has letters, digits, - and _ only; copy it from the service's page on the platform.";
      return undefined;
    }
    return {
      kind: 'service',
      serviceId: text,
      ...(percent !== undefined ? { percent } : {}),
      ...(inputs[ATTACK_INCLUDE_NEW] === CHECKED ? { includeNewTargets: true } : {}),
    };
  }
  const parsed = valuesTarget(kind, [text], { count, percent });
  if ('problem' in parsed) {
    // A field error is plain text: no typographic quotes around the value.
    errors[ATTACK_TARGET_VALUES] = kind === 'kubernetes' ? parsed.problem.replace(/[“”]/g, '"') : parsed.problem;
    return undefined;
  }
  return parsed.target;
}
