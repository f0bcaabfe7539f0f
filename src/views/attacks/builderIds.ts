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
