import type { Config } from '../config.ts';
import { UserInputError } from '../errors.ts';

/** Why an attack card could not be posted and kept up to date in a channel, as Slack tells it; undefined when it can. */
export interface CardChannels {
  cardProblem(channel: string): Promise<string | undefined>;
}

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

/**
 * Where attacks may start: a channel ATTACK_CHANNELS allows, where the card (and its Halt button)
 * can be posted. Checked before anything is sent to the platform; answers the channel.
 */
export async function attackChannel(
  deps: { config: Pick<Config, 'attackChannels'>; channels: CardChannels },
  channel: string | undefined,
): Promise<string> {
  if (!channel) throw new UserInputError('Start attacks from a channel, where their card can be posted.');
  const others = otherAttackChannels(deps.config.attackChannels, channel);
  if (others)
    throw new UserInputError(
      `Attacks cannot be started in this channel. Use ${others.map((c) => `<#${c}>`).join(', ')}.`,
    );
  const problem = await deps.channels.cardProblem(channel);
  if (problem) throw new UserInputError(problem);
  return channel;
}
