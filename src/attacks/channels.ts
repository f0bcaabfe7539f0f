/**
 * The channels to use instead when ATTACK_CHANNELS does not let attacks start in `channel`;
 * undefined when it does (every channel, when unset).
 */
export function otherAttackChannels(
  allowed: readonly string[] | undefined,
  channel: string | undefined,
): readonly string[] | undefined {
  if (!allowed || (channel !== undefined && allowed.includes(channel))) return undefined;
  return allowed;
}
