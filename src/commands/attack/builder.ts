import type { InfraAttackMetadata } from '../../client/catalogue.ts';
import {
  ATTACK_LENGTH,
  ATTACK_TARGET_COUNT,
  ATTACK_TARGET_KIND,
  ATTACK_TARGET_VALUES,
  ATTACK_TEAM,
  ATTACK_TYPE_SELECT,
  CHECKED,
  attackArgId,
  isBuilderTargetKind,
} from '../../views/attackBuilder.ts';
import { defaultLength, findAttackType, flagOf } from '../../attacks/attackTypes.ts';
import { implicitLength, lengthProblem, parseCount, parseIdList, parsePairs, valueProblem, type AttackLimits } from './validate.ts';
import type { AttackRequest, AttackTarget } from '../../attacks/request.ts';

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
export function builderToRequest(inputs: Record<string, string | undefined>, catalogue: readonly InfraAttackMetadata[], limits: AttackLimits): AttackRequest | BuilderErrors {
  const errors: Record<string, string> = {};
  const typeName = filled(inputs[ATTACK_TYPE_SELECT]);
  const metadata = typeName ? findAttackType(catalogue, typeName) : undefined;
  if (!metadata) {
    errors[ATTACK_TYPE_SELECT] = typeName ? `${typeName} is no longer an attack type here; choose another.` : 'Choose an attack type.';
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
    const value = arg.multiple ? raw.split(',').map((item) => item.trim()).join(',') : raw;
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

  const tooLong = lengthProblem(lengthSeconds, limits);
  if (tooLong && !errors[ATTACK_LENGTH]) {
    const lengthField = metadata.args.some((arg) => arg.name === 'length') ? ATTACK_LENGTH : ATTACK_TYPE_SELECT;
    errors[lengthField] = filled(inputs[ATTACK_LENGTH]) ? tooLong : `${tooLong} ${metadata.name} runs ${lengthSeconds} seconds by default; enter a shorter length.`;
  }

  const target = targetFromInputs(inputs, errors);
  if (Object.keys(errors).length > 0 || !target) return { errors };
  return { type: metadata.name, args, target, team: filled(inputs[ATTACK_TEAM]), yes: false, lengthSeconds };
}

function targetFromInputs(inputs: Record<string, string | undefined>, errors: Record<string, string>): AttackTarget | undefined {
  const kind = inputs[ATTACK_TARGET_KIND];
  if (!isBuilderTargetKind(kind)) {
    errors[ATTACK_TARGET_KIND] = 'Choose what to attack.';
    return undefined;
  }
  const text = filled(inputs[ATTACK_TARGET_VALUES]);
  const countText = filled(inputs[ATTACK_TARGET_COUNT]);
  let count: number | undefined;
  if (countText !== undefined) {
    if (kind !== 'tags' && kind !== 'labels') {
      errors[ATTACK_TARGET_COUNT] = 'A count only goes with random hosts by tags or containers by label; clear it or change the target.';
    } else {
      const parsed = parseCount(countText);
      if ('problem' in parsed) errors[ATTACK_TARGET_COUNT] = parsed.problem;
      else count = parsed.count;
    }
  }
  if (kind === 'all') {
    // Typed values with "every client" chosen is most likely a slip; hitting everything by mistake is the worst outcome.
    if (text !== undefined) errors[ATTACK_TARGET_VALUES] = 'Every active client is chosen as the target; clear this field or choose another target.';
    return { kind: 'all' };
  }
  if (text === undefined) {
    errors[ATTACK_TARGET_VALUES] = kind === 'tags' || kind === 'labels' ? 'Enter one or more key=value pairs.' : 'Enter one or more ids.';
    return undefined;
  }
  if (kind === 'hosts' || kind === 'containers') {
    const parsed = parseIdList(text);
    if ('problem' in parsed) {
      errors[ATTACK_TARGET_VALUES] = parsed.problem;
      return undefined;
    }
    return kind === 'hosts' ? { kind: 'hosts', ids: parsed.ids } : { kind: 'containers', ids: parsed.ids };
  }
  const parsed = parsePairs(text);
  if ('problem' in parsed) {
    errors[ATTACK_TARGET_VALUES] = parsed.problem;
    return undefined;
  }
  const exact = count !== undefined ? { count } : {};
  return kind === 'tags' ? { kind: 'tags', tags: parsed.pairs, ...exact } : { kind: 'labels', labels: parsed.pairs, ...exact };
}
