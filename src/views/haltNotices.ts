import type { TripAttack } from '../attacks/events.ts';
import { attackRefValue, HALT_ATTACK } from './attackCard.ts';
import { actions, button, escapeMrkdwn, section, slackDate } from './blocks.ts';
import { haltAllButton } from './halt.ts';
import type { Message } from './message.ts';

/** A person's halt, in the attack's thread. */
export const personHaltLine = (userId: string) => `:octagonal_sign: <@${userId}> halted this attack.`;

/** A guard's halt, in the attack's thread. */
export function guardHaltLine(guard: { name: string; state: string; at: string }, ownerId: string): string {
  return `:rotating_light: Guard *${escapeMrkdwn(guard.name)}* fired (${escapeMrkdwn(guard.state)}) at ${slackDate(new Date(guard.at), '{time}')}: halted this attack with <@${ownerId}>'s session.`;
}

const listed = (attacks: readonly TripAttack[]) =>
  attacks.map((c) => `*${escapeMrkdwn(c.type)}* \`${c.guid}\` in *${escapeMrkdwn(c.teamName)}*`).join(', ');

/** In a channel: a fired guard could not halt these attacks; a Halt for each, and Halt all for the hurry. */
export function guardCouldNotHalt(
  guard: { name: string; state: string },
  ownerId: string,
  attacks: readonly TripAttack[],
): Message {
  const text = `:rotating_light: Guard *${escapeMrkdwn(guard.name)}* fired (${escapeMrkdwn(guard.state)}), but <@${ownerId}>'s session could not halt ${listed(attacks)}. Halt ${attacks.length === 1 ? 'it' : 'them'} now.`;
  const halts = attacks.slice(0, 24).map((c) =>
    button(`Halt ${c.type} · ${c.guid.slice(0, 8)}`, HALT_ATTACK, {
      style: 'danger',
      value: attackRefValue({ guid: c.guid, teamId: c.teamId, kind: c.kind }),
    }),
  );
  return { text, blocks: [section(text), actions('guard_halt', [...halts, haltAllButton()])] };
}

/** To the guard's owner: their session could not halt what their guard covers. */
export function guardOwnerCouldNotHalt(
  guard: { name: string; state: string },
  attacks: readonly TripAttack[],
  command: string,
): string {
  return `:rotating_light: Your guard *${escapeMrkdwn(guard.name)}* fired (${escapeMrkdwn(guard.state)}), but your session could not halt ${listed(attacks)}: log in again with \`${command} login\` and halt ${attacks.length === 1 ? 'it' : 'them'}, or ask someone who can.`;
}

/** Where a freeze was declared: its sweep halted attacks that started in the frozen team. */
export function frozenHaltText(
  teamName: string,
  halted: readonly { guid: string; kind: 'attack' | 'kubernetes'; type: string | undefined }[],
): string {
  const names = halted
    .map(
      (a) =>
        `${a.kind === 'kubernetes' ? 'Kubernetes ' : ''}${a.type ? `*${escapeMrkdwn(a.type)}* ` : ''}\`${a.guid}\``,
    )
    .join(', ');
  return `:snowflake: Halted ${names} in *${escapeMrkdwn(teamName)}*: it started while the team is frozen.`;
}
