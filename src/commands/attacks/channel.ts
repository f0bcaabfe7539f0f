import type { Services } from '../../services.ts';
import { otherAttackChannels } from '../../attacks/channels.ts';
import { UserInputError } from '../../errors.ts';
import { channelLinks } from '../../views/blocks.ts';

/**
 * Where attacks may start: a channel allowed by ATTACK_CHANNELS, where the card (and its Halt
 * button) can be posted. Checked before anything is sent to the platform.
 */
export async function checkChannel(deps: Services, channel: string | undefined): Promise<string> {
  if (!channel) throw new UserInputError('Start attacks from a channel, where their card can be posted.');
  const others = otherAttackChannels(deps.attacks.settings.attackChannels, channel);
  if (others) throw new UserInputError(`Attacks cannot be started in this channel. Use ${channelLinks(others)}.`);
  const problem = await deps.slack.cardProblem(channel);
  if (problem) throw new UserInputError(problem);
  return channel;
}
