import type { KnownBlock } from '@slack/types';
import {
  haltCount,
  gameDayRefValue,
  type GameDayAttack,
  type GameDayEvent,
  type GameDayGuard,
  type GameDayGuardTrip,
  type GameDayRecord,
  type GameDayTicket,
  type GameDayTripAttack,
} from '../../gamedays/gamedayRecord.ts';
import type { Message } from '../message.ts';
import {
  actions,
  button,
  code,
  confirmDialog,
  context,
  escapeMrkdwn,
  externalLink,
  fields,
  header,
  section,
  slackDate,
  truncate,
  plural,
} from '../blocks.ts';
import { argsText, stageLabel } from '../attacks/attackCard.ts';
import { haltAllButton } from '../attacks/halt.ts';
import { gameDayMetadata } from '../attacks/metadata.ts';
import { planCardBlocks, planCardButtons } from './plan.ts';
import { stepTimelineLine } from './planWords.ts';
import { badged, badgedHeader, rehearsalBadge, rehearsalWords } from './gamedayWords.ts';

export const GAMEDAY_END = 'gameday_end';
export const GAMEDAY_FILE_TICKET = 'gameday_file_ticket';
export const GAMEDAY_CARD_ACTIONS = 'gameday_card_actions';
export const GAMEDAY_SUMMARY_ACTIONS = 'gameday_summary_actions';
export const GAMEDAY_HALT_AND_END = 'gameday_halt_and_end';
export const GAMEDAY_END_ANYWAY = 'gameday_end_anyway';
export const GAMEDAY_END_CANCEL = 'gameday_end_cancel';
export const GAMEDAY_END_WARNING_ACTIONS = 'gameday_end_warning_actions';

export const gameDayEndConfirm = confirmDialog(
  'End the game day?',
  'The summary is posted in the channel. If attacks of the game day are still running, you choose next whether to halt them first.',
  'End game day',
);

export const when = (iso: string | undefined) =>
  iso && !Number.isNaN(Date.parse(iso)) ? slackDate(new Date(iso)) : 'unknown';
export const attackName = (attack: Pick<GameDayAttack, 'type' | 'guid'>) =>
  `*${escapeMrkdwn(attack.type)}* ${code(attack.guid)}`;
export const issueLink = (ticket: Pick<GameDayTicket, 'key' | 'url'>) => externalLink(ticket.url, ticket.key);

/** How long it ran, in words: `1 h 5 min`, `12 min`, `40 s`. */
export function durationText(startedAt: string, endedAt: string): string {
  const seconds = Math.max(0, Math.round((Date.parse(endedAt) - Date.parse(startedAt)) / 1000));
  if (Number.isNaN(seconds)) return 'unknown';
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

export function counters(record: GameDayRecord): [string, string][] {
  return [
    ['Attacks', String(record.attacks.length)],
    ['Halts', String(haltCount(record))],
    ['Notes', String(record.notes.length)],
    ['Tickets', String(record.tickets.length)],
  ];
}

const healthEmoji = (health: GameDayGuard['health']) =>
  health === 'unhealthy' ? ':rotating_light:' : health === 'healthy' ? ':large_green_circle:' : ':grey_question:';

/** A guard and its last reading: `:large_green_circle: checkout p99 latency (1234567): OK`. */
export function guardReadingText(g: Pick<GameDayGuard, 'name' | 'state' | 'health'>): string {
  return `${healthEmoji(g.health)} ${escapeMrkdwn(truncate(g.name, 200))}: ${g.state === undefined ? 'not read yet' : escapeMrkdwn(g.state)}`;
}

/** Guards a card lists; the rest are counted. */
const cardGuardsShown = 15;

/** The card's guards section: each guard with its last reading, and when it last fired. */
export function gameDayGuardsText(guards: readonly GameDayGuard[], trips: readonly GameDayGuardTrip[] = []): string {
  const lines = guards.slice(0, cardGuardsShown).map((g) => {
    const fired = trips.filter((t) => t.key === g.key).at(-1);
    return `${guardReadingText(g)}${fired ? ` · fired ${when(fired.at)}` : ''}`;
  });
  if (guards.length > lines.length) lines.push(`_and ${plural(guards.length - lines.length, 'more guard')}_`);
  return `*Guards*\n${lines.join('\n')}`;
}

/** The card posted when a game day starts, updated when it ends. */
export function gameDayCard(record: GameDayRecord): Message {
  const ended = record.endedAt;
  const running = ended === undefined;
  const status = running
    ? ':large_green_circle: Running'
    : `:checkered_flag: Ended ${when(ended)}, after ${durationText(record.startedAt, ended)}`;
  const blocks: KnownBlock[] = [
    header(badgedHeader(record, `Game day: ${record.title}`)),
    section(`Facilitated by <@${record.facilitator}> · started ${when(record.startedAt)}\n${status}`),
    fields(counters(record)),
  ];
  if (record.guards?.length) blocks.push(section(gameDayGuardsText(record.guards, record.trips)));
  if (record.plan) blocks.push(...planCardBlocks(record.plan));
  if (running) {
    blocks.push(
      context(
        record.rehearsal
          ? `${rehearsalBadge}: ${rehearsalWords}`
          : 'Attacks started in this channel, halts, notes and tickets are added to this thread until the game day ends.',
      ),
    );
    blocks.push(
      actions(GAMEDAY_CARD_ACTIONS, [
        // A rehearsal has nothing to halt: nothing it ran exists.
        ...(record.rehearsal ? [] : [haltAllButton()]),
        ...planCardButtons(record),
        button('End game day', GAMEDAY_END, { value: gameDayRefValue(record), confirm: gameDayEndConfirm }),
      ]),
    );
  }
  return {
    text: badged(record, `Game day ${escapeMrkdwn(record.title)}: ${running ? 'running' : 'ended'}`),
    blocks,
    metadata: gameDayMetadata(record),
  };
}

const tripAttacks = (attacks: readonly GameDayTripAttack[]) => attacks.map(attackName).join(', ');

/** What a guard trip did, after its name and state: `halted *cpu* `g1`; could not halt …`. */
export function tripOutcome(t: GameDayGuardTrip): string {
  const parts: string[] = [];
  if (t.halted.length) parts.push(`halted ${tripAttacks(t.halted)}`);
  if (t.notHalted.length) parts.push(`<@${t.owner}>'s session could not halt ${tripAttacks(t.notHalted)}`);
  return parts.length ? parts.join('; ') : 'no attack it covers was running';
}

/** One line for the game day's thread; `attacks` names the attack an event is about by its type. */
export function gameDayTimelineLine(event: GameDayEvent, attacks: readonly GameDayAttack[] = []): string {
  const about = (guid: string) => {
    const attack = attacks.find((candidate) => candidate.guid === guid);
    return attack ? `the ${attackName(attack)} attack` : `attack ${code(guid)}`;
  };
  switch (event.kind) {
    case 'attack': {
      const a = event.attack;
      return `:rocket: <@${a.startedBy}> started ${attackName(a)} ${argsText(a.args.map(escapeMrkdwn))} on ${escapeMrkdwn(a.targetWords)} in team *${escapeMrkdwn(a.teamName)}*`;
    }
    case 'halt': {
      const h = event.halt;
      if (h.scope === 'everything') return `:octagonal_sign: <@${h.by}> halted everything across the platform`;
      if (h.scope === 'all' || !h.guid) return `:octagonal_sign: <@${h.by}> halted all attacks`;
      return `:octagonal_sign: <@${h.by}> halted ${about(h.guid)}`;
    }
    case 'note':
      return `:memo: <@${event.note.by}> on ${about(event.note.guid)}: ${escapeMrkdwn(truncate(event.note.text, 1000))}`;
    case 'ticket': {
      const t = event.ticket;
      return `:ticket: <@${t.by}> filed ${issueLink(t)}${t.guid ? ` for ${about(t.guid)}` : ' for the game day'}`;
    }
    case 'refused': {
      const r = event.refused;
      const what = `*${escapeMrkdwn(r.type)}* ${argsText(r.args.map(escapeMrkdwn))} on ${escapeMrkdwn(r.targetWords)} in team *${escapeMrkdwn(r.teamName)}*`;
      return r.unconfirmed
        ? `:grey_question: <@${r.startedBy}> tried to start ${what}, but ${r.reason}: check the team's attacks before trying again`
        : `:x: <@${r.startedBy}> could not start ${what}: ${r.reason}`;
    }
    case 'guard': {
      const t = event.trip;
      const ask = t.notHalted.length ? `: halt ${t.notHalted.length === 1 ? 'it' : 'them'} now` : '';
      return `:rotating_light: Guard *${escapeMrkdwn(t.guard)}* fired (${escapeMrkdwn(t.state)}) at ${slackDate(new Date(t.at), '{time}')}: ${tripOutcome(t)}${ask}`;
    }
    case 'step':
      return stepTimelineLine(event.step);
  }
}

/** What a failed stage means, in words; the platform names more failures than it explains. */
const failureReasons: Record<string, string> = {
  InvalidArgument: 'the platform did not accept its arguments',
  TargetNotFound: 'no host or container matched its target',
  ClientAborted: 'the agent on a target aborted it',
  LostCommunication: 'the platform lost contact with a target',
  InitializationFailed: 'it could not be set up on its targets',
  TeardownFailed: 'it ran, but could not be cleaned up on its targets: check them',
  HaltFailed: 'a halt could not be carried out on its targets: check them',
};

/** `Failed: target not found (no host or container matched its target)`, for an attack that ended in error. */
export function failureText(stage: string): string {
  const reason = failureReasons[stage] ?? 'the platform reports that it failed';
  return `${stageLabel(stage, 'Error')} (${reason})`;
}

/** The timeline's line when an attack of the game day ends in error (often before it ran at all). */
export function gameDayFailureLine(attack: GameDayAttack, stage: string): string {
  return `:x: The ${attackName(attack)} attack on ${escapeMrkdwn(attack.targetWords)} in team *${escapeMrkdwn(attack.teamName)}* failed · ${failureText(stage)}`;
}
