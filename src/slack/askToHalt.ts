import type { AttackEvent, TripAttack } from '../attacks/events.ts';
import type { Logger } from '../logger.ts';
import { guardCouldNotHalt, guardOwnerCouldNotHalt } from '../views/attacks/halt.ts';
import type { Messenger } from './messenger.ts';

/**
 * A fired guard's owners' sessions could not halt these attacks: people are asked to, in each
 * attack's channel, and the guard's owner directly (`command` is the slash command they are told
 * to run).
 */
export async function askToHalt(
  o: { messenger: Pick<Messenger, 'post'>; logger: Logger; command: string },
  guard: Extract<AttackEvent, { kind: 'guard fired' }>['guard'],
  notHalted: TripAttack[],
): Promise<void> {
  for (const channel of new Set(notHalted.map((c) => c.channel))) {
    const here = notHalted.filter((c) => c.channel === channel);
    await o.messenger
      .post(channel, guardCouldNotHalt(guard, guard.owner.userId, here))
      .catch((error: unknown) =>
        o.logger.warn({ err: error, channel }, 'could not ask a channel to halt after a guard fired'),
      );
  }
  await o.messenger
    .post(guard.owner.userId, { text: guardOwnerCouldNotHalt(guard, notHalted, o.command) })
    .catch((error: unknown) =>
      o.logger.warn({ err: error }, 'could not tell a guard owner that their guard could not halt'),
    );
}
