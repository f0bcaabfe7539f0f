import type { Button, KnownBlock } from '@slack/types';
import type { CardRecord } from '../attacks/cards.ts';
import { isLive } from '../attacks/cards.ts';
import type { Message } from './message.ts';
import { actions, button, context, escapeMrkdwn, fields, header, section, slackDate, truncate } from './blocks.ts';
import { plural } from './plural.ts';

export const HALT_ATTACK = 'attack_halt';
export const ADD_NOTE = 'attack_add_note';
export const ATTACK_DETAILS = 'attack_details';
export const FILE_TICKET = 'attack_file_ticket';

/** What a Halt, note or details button carries: the attack, its team and its kind. */
export interface AttackRef {
  guid: string;
  teamId: string;
  kind: 'attack' | 'kubernetes';
}

export function attackRefValue(ref: AttackRef): string {
  return JSON.stringify({ g: ref.guid, t: ref.teamId, k: ref.kind === 'kubernetes' ? 'k' : 'a' });
}

/** The Halt button of one attack: the same on its card, in lists, in its details and on App Home. */
export function haltButton(ref: AttackRef): Button {
  return button('Halt', HALT_ATTACK, { style: 'danger', value: attackRefValue(ref) });
}

export function parseAttackRef(value: string | undefined): AttackRef | undefined {
  try {
    const parsed = JSON.parse(value ?? '') as { g?: unknown; t?: unknown; k?: unknown };
    if (typeof parsed.g !== 'string' || typeof parsed.t !== 'string') return undefined;
    return { guid: parsed.g, teamId: parsed.t, kind: parsed.k === 'k' ? 'kubernetes' : 'attack' };
  } catch {
    return undefined;
  }
}

const stageEmoji: Record<string, string> = {
  Pending: ':hourglass_flowing_sand:',
  Distributed: ':hourglass_flowing_sand:',
  Initializing: ':hourglass_flowing_sand:',
  Running: ':fire:',
  TearingDown: ':broom:',
  InterruptTriggered: ':rotating_light:',
  RollbackTriggered: ':rewind:',
  RollbackStarted: ':rewind:',
  Halt: ':octagonal_sign:',
  HaltDistributed: ':octagonal_sign:',
  Successful: ':white_check_mark:',
  UserHalted: ':octagonal_sign:',
};

/** The stage as a person reads it: an emoji and the platform's stage name, spaced out. */
export function stageLabel(stage: string, lifecycle: string): string {
  const emoji = stageEmoji[stage] ?? (lifecycle === 'Error' ? ':x:' : lifecycle === 'Complete' ? ':white_check_mark:' : ':grey_question:');
  return `${emoji} ${stage.replace(/([a-z])([A-Z])/g, '$1 $2')}`;
}

export function argsText(args: readonly string[]): string {
  return args.length ? `\`${escapeMrkdwn(truncate(args.join(' '), 500)).replace(/`/g, "'")}\`` : '_no arguments_';
}

/** The card posted in the channel when an attack starts, updated in place as its stage changes. */
export function attackCardMessage(card: CardRecord, links: { appUrl?: string | undefined } = {}): Message {
  const live = isLive(card);
  const ref = attackRefValue(card);
  const stage = stageLabel(card.stage, card.lifecycle);
  const started = card.startTime ?? card.createdAt;
  const ends = card.endTime
    ? `Ended ${slackDate(new Date(card.endTime))}`
    : card.lengthSeconds !== undefined
      ? `Ends about ${slackDate(new Date(new Date(started).getTime() + card.lengthSeconds * 1000))}`
      : 'Runs until it completes';
  const link = links.appUrl ? ` · <${links.appUrl}/attacks/${card.guid}|Open in the platform>` : '';
  const notes = Object.entries(card.annotations);
  const halted = card.haltedBy.length ? `\nHalt requested by ${[...new Set(card.haltedBy.map((h) => `<@${h.userId}>`))].join(', ')}` : '';
  const blocks: KnownBlock[] = [
    header(`${card.type} attack · ${card.stage.replace(/([a-z])([A-Z])/g, '$1 $2')}`),
    section(`*${escapeMrkdwn(card.type)}* ${argsText(card.args)} on ${escapeMrkdwn(card.targetWords)} in team *${escapeMrkdwn(card.teamName)}*\nStarted by <@${card.startedBy.userId}>${card.startedByPlatform ? ` (${escapeMrkdwn(card.startedByPlatform)})` : ''}${halted}`),
    fields([
      ['Stage', stage],
      ['Targets', card.totalClients !== undefined ? plural(card.totalClients, 'client') : 'resolving…'],
      ['Started', slackDate(new Date(started))],
      ['End', ends],
    ]),
  ];
  if (notes.length) {
    blocks.push(section(`*Notes*\n${notes.slice(-10).map(([, text]) => `• ${escapeMrkdwn(truncate(text, 280))}`).join('\n')}`));
  }
  if (card.ticketCount) blocks.push(context(`:ticket: ${plural(card.ticketCount, 'ticket')} filed`));
  blocks.push(context(`Attack \`${card.guid}\`${link}`));
  blocks.push(
    actions('attack_card_actions', [
      ...(live ? [haltButton(card)] : []),
      button('File ticket', FILE_TICKET, { value: ref }),
      button('Add note', ADD_NOTE, { value: ref }),
      button('Details', ATTACK_DETAILS, { value: ref }),
    ]),
  );
  // Notification text is mrkdwn too: what a person typed must not ping the channel.
  const text = escapeMrkdwn(`${card.type} attack on ${card.targetWords} in team ${card.teamName}: ${card.stage}`);
  return { text, blocks };
}
