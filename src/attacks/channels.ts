/**
 * The channels to use instead when ATTACK_CHANNELS does not let attacks start in `channel`, as
 * Slack links for the message that says so; undefined when it does (every channel, when unset).
 */
export function otherAttackChannels(
  allowed: readonly string[] | undefined,
  channel: string | undefined,
): string | undefined {
  if (!allowed || (channel !== undefined && allowed.includes(channel))) return undefined;
  return allowed.map((c) => `<#${c}>`).join(', ');
}
