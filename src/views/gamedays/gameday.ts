import type { ConfirmationDialog, KnownBlock, SectionBlock } from '@slack/types';
import {
  haltCount,
  gameDayRefValue,
  type GameDayAttack,
  type GameDayEvent,
  type GameDayGuard,
  type GameDayGuardTrip,
  type GameDayOutcomes,
  type GameDayRecord,
  type GameDayRefusal,
  type GameDayTicket,
  type GameDayTripAttack,
} from '../../gamedays/gamedayRecord.ts';
import type { Message } from '../message.ts';
import {
  actions,
  button,
  code,
  context,
  escapeMrkdwn,
  externalLink,
  fields,
  header,
  limits,
  section,
  slackDate,
  truncate,
} from '../blocks.ts';
import { argsText, stageLabel } from '../attacks/attackCard.ts';
import { haltAllButton } from '../attacks/halt.ts';
import { plural } from '../plural.ts';
import { gameDayMetadata } from '../attacks/metadata.ts';
import { planCardBlocks, planCardButtons, stepTimelineLine, summaryStepLines } from './plan.ts';

export const GAMEDAY_END = 'gameday_end';
export const GAMEDAY_FILE_TICKET = 'gameday_file_ticket';
export const GAMEDAY_CARD_ACTIONS = 'gameday_card_actions';
export const GAMEDAY_SUMMARY_ACTIONS = 'gameday_summary_actions';
export const GAMEDAY_HALT_AND_END = 'gameday_halt_and_end';
export const GAMEDAY_END_ANYWAY = 'gameday_end_anyway';
export const GAMEDAY_END_CANCEL = 'gameday_end_cancel';
export const GAMEDAY_END_WARNING_ACTIONS = 'gameday_end_warning_actions';

export const gameDayEndConfirm: ConfirmationDialog = {
  title: { type: 'plain_text', text: 'End the game day?' },
  text: {
    type: 'mrkdwn',
    text: 'The summary is posted in the channel. If attacks of the game day are still running, you choose next whether to halt them first.',
  },
  confirm: { type: 'plain_text', text: 'End game day' },
  deny: { type: 'plain_text', text: 'Cancel' },
};

const when = (iso: string | undefined) =>
  iso && !Number.isNaN(Date.parse(iso)) ? slackDate(new Date(iso)) : 'unknown';
const attackName = (attack: Pick<GameDayAttack, 'type' | 'guid'>) =>
  `*${escapeMrkdwn(attack.type)}* ${code(attack.guid)}`;
const issueLink = (ticket: Pick<GameDayTicket, 'key' | 'url'>) => externalLink(ticket.url, ticket.key);

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

function counters(record: GameDayRecord): [string, string][] {
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
    header(`Game day: ${record.title}`),
    section(`Facilitated by <@${record.facilitator}> · started ${when(record.startedAt)}\n${status}`),
    fields(counters(record)),
  ];
  if (record.guards?.length) blocks.push(section(gameDayGuardsText(record.guards, record.trips)));
  if (record.plan) blocks.push(...planCardBlocks(record.plan));
  if (running) {
    blocks.push(
      context(
        'Attacks started in this channel, halts, notes and tickets are added to this thread until the game day ends.',
      ),
    );
    blocks.push(
      actions(GAMEDAY_CARD_ACTIONS, [
        haltAllButton(),
        ...planCardButtons(record),
        button('End game day', GAMEDAY_END, { value: gameDayRefValue(record), confirm: gameDayEndConfirm }),
      ]),
    );
  }
  return {
    text: `Game day ${escapeMrkdwn(record.title)}: ${running ? 'running' : 'ended'}`,
    blocks,
    metadata: gameDayMetadata(record),
  };
}

const tripAttacks = (attacks: readonly GameDayTripAttack[]) => attacks.map(attackName).join(', ');

/** What a guard trip did, after its name and state: `halted *cpu* `g1`; could not halt …`. */
function tripOutcome(t: GameDayGuardTrip): string {
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

/**
 * Sections holding the lines under a title, packed under Slack's 3,000 characters each, at most
 * `maxSections` of them; what does not fit is counted in an "and N more" line.
 */
function lineSections(title: string, lines: string[], maxSections: number, noun: string): SectionBlock[] {
  // Leaves room in every section for the closing "and N more" line.
  const room = limits.sectionText - 50;
  const sections: string[][] = [[`*${title}*`]];
  const size = (part: string[]) => part.reduce((total, text) => total + text.length + 1, 0);
  let placed = 0;
  for (const line of lines) {
    const text = truncate(line, room - title.length - 10);
    const current = sections[sections.length - 1]!;
    if (size(current) + text.length <= room) current.push(text);
    else if (sections.length < maxSections) sections.push([text]);
    else break;
    placed += 1;
  }
  if (placed < lines.length)
    sections[sections.length - 1]!.push(`_and ${plural(lines.length - placed, `more ${noun}`)}_`);
  return sections.map((part) => section(part.join('\n')));
}

/** What became of an attack, by guid, as the handler learns it from the card or the platform. */
/** An attack's outcome in the summary: how it ended, or that the summary follows it until it does. */
function outcomeText(outcome: GameDayOutcomes[string] | undefined): string {
  if (!outcome) return ':grey_question: outcome unknown';
  if (outcome.lifecycle === 'Error') return failureText(outcome.stage);
  if (outcome.lifecycle === 'Complete') return stageLabel(outcome.stage, outcome.lifecycle);
  return `${stageLabel(outcome.stage, outcome.lifecycle)} _(not over yet: shown here once it ends)_`;
}

const refusalLine = (r: GameDayRefusal) =>
  `• *${escapeMrkdwn(r.type)}* ${argsText(r.args.map(escapeMrkdwn))} on ${escapeMrkdwn(truncate(r.targetWords, 200))} · team ${escapeMrkdwn(r.teamName)} · tried by <@${r.startedBy}> ${when(r.at)}: ${r.reason}`;

/** One attack of a game day and how it went, as the summary and `gameday status` show it. */
function attackOutcomeLine(
  record: GameDayRecord,
  a: GameDayAttack,
  outcome: GameDayOutcomes[string] | undefined,
): string {
  const haltedBy = new Set([
    ...(outcome?.haltedBy ?? []),
    ...record.halts.filter((h) => h.scope === 'attack' && h.guid === a.guid).map((h) => h.by),
  ]);
  const parts = [
    `• ${attackName(a)} ${argsText(a.args.map(escapeMrkdwn))} on ${escapeMrkdwn(truncate(a.targetWords, 200))} · team ${escapeMrkdwn(a.teamName)}`,
    `started by <@${a.startedBy}>`,
    outcomeText(outcome),
  ];
  if (haltedBy.size) parts.push(`halted by ${[...haltedBy].map((id) => `<@${id}>`).join(', ')}`);
  return parts.join(' · ');
}

/** Sections for each part of the summary, within 50 blocks together with header, overview and buttons. */
const summarySections = {
  steps: 4,
  attacks: 22,
  refused: 2,
  unconfirmed: 1,
  massHalts: 2,
  trips: 2,
  notes: 7,
  tickets: 4,
} as const;

/** The summary posted when a game day ends. */
export function gameDaySummary(record: GameDayRecord, outcomes: GameDayOutcomes): Message {
  const ended = record.endedAt;
  const duration = ended ? durationText(record.startedAt, ended) : undefined;
  const attackLines = record.attacks.map((a) => attackOutcomeLine(record, a, outcomes[a.guid]));
  const massHalts = record.halts
    .filter((h) => h.scope !== 'attack')
    .map(
      (h) =>
        `• <@${h.by}> halted ${h.scope === 'everything' ? 'everything across the platform' : 'all attacks'} ${when(h.at)}`,
    );
  const byGuid = (guid: string) => record.attacks.find((a) => a.guid === guid);
  const noteLines = record.notes.map((n) => {
    const attack = byGuid(n.guid);
    return `• <@${n.by}> on ${attack ? attackName(attack) : `\`${n.guid}\``}: ${escapeMrkdwn(truncate(n.text, 500))}`;
  });
  const ticketLines = record.tickets.map((t) => {
    const attack = t.guid ? byGuid(t.guid) : undefined;
    const about = t.guid ? ` for ${attack ? attackName(attack) : code(t.guid)}` : ' for the game day';
    return `• ${issueLink(t)}${about}, filed by <@${t.by}>`;
  });

  const blocks: KnownBlock[] = [
    header(`Game day summary: ${record.title}`),
    section(
      `Facilitated by <@${record.facilitator}> · started ${when(record.startedAt)} · ${ended ? `ended ${when(ended)} after *${duration}*` : 'still running'}`,
    ),
    fields(counters(record)),
  ];
  const stepLines = summaryStepLines(record);
  if (stepLines.length) blocks.push(...lineSections('Steps', stepLines, summarySections.steps, 'step'));
  blocks.push(
    ...(attackLines.length
      ? lineSections('Attacks', attackLines, summarySections.attacks, 'attack')
      : [section('*Attacks*\nNo attacks were started in the channel.')]),
  );
  const refused = record.refused ?? [];
  const notStarted = refused.filter((r) => !r.unconfirmed).map(refusalLine);
  const unconfirmed = refused.filter((r) => r.unconfirmed).map(refusalLine);
  if (notStarted.length) blocks.push(...lineSections('Did not start', notStarted, summarySections.refused, 'attack'));
  if (unconfirmed.length)
    blocks.push(
      ...lineSections(
        'Not confirmed by the platform (check whether they ran)',
        unconfirmed,
        summarySections.unconfirmed,
        'attack',
      ),
    );
  if (massHalts.length)
    blocks.push(...lineSections('Halts of every attack', massHalts, summarySections.massHalts, 'halt'));
  const tripLines = (record.trips ?? []).map(
    (t) =>
      `• *${escapeMrkdwn(t.guard)}* fired (${escapeMrkdwn(t.state)}) ${when(t.at)}, guard of <@${t.owner}>: ${tripOutcome(t)}`,
  );
  if (tripLines.length) blocks.push(...lineSections('Guard trips', tripLines, summarySections.trips, 'trip'));
  if (noteLines.length) blocks.push(...lineSections('Notes', noteLines, summarySections.notes, 'note'));
  if (ticketLines.length) blocks.push(...lineSections('Tickets', ticketLines, summarySections.tickets, 'ticket'));
  blocks.push(
    actions(GAMEDAY_SUMMARY_ACTIONS, [
      button('File ticket for the game day', GAMEDAY_FILE_TICKET, { value: gameDayRefValue(record) }),
    ]),
  );
  const text = `Game day ${escapeMrkdwn(record.title)} summary: ${plural(record.attacks.length, 'attack')}${duration ? ` in ${duration}` : ''}`;
  return { text, blocks };
}

/** Attacks listed in `gameday status`, newest last. */
const statusAttacksShown = 10;

/** `gameday status`: the channel's game day so far. */
export function gameDayStatusMessage(record: GameDayRecord, outcomes: GameDayOutcomes): Message {
  const ended = record.endedAt;
  const status = ended ? `ended after ${durationText(record.startedAt, ended)}` : 'running';
  const blocks: KnownBlock[] = [
    section(
      `:dart: Game day *${escapeMrkdwn(record.title)}* · ${ended ? `ended ${when(ended)} after ${durationText(record.startedAt, ended)}` : 'running'}\nFacilitated by <@${record.facilitator}> · started ${when(record.startedAt)}`,
    ),
    fields(counters(record)),
  ];
  const recent = record.attacks.slice(-statusAttacksShown);
  if (recent.length) {
    const earlier = record.attacks.length - recent.length;
    const lines = recent.map((a) => attackOutcomeLine(record, a, outcomes[a.guid]));
    blocks.push(...lineSections(earlier ? `Latest attacks (${earlier} earlier)` : 'Attacks', lines, 3, 'attack'));
  }
  if (record.guards?.length) blocks.push(section(gameDayGuardsText(record.guards, record.trips)));
  if (record.plan) blocks.push(...planCardBlocks(record.plan));
  const refused = record.refused ?? [];
  if (refused.length)
    blocks.push(context(`:x: ${plural(refused.length, 'start')} the platform did not take; the thread says why.`));
  return { text: `Game day ${escapeMrkdwn(record.title)}: ${status}`, blocks };
}

/** `gameday status` or `end` in a channel without a game day. */
export function noGameDayText(command: string): string {
  return `No game day is running in this channel. Start one with \`${command} gameday start <title>\`.`;
}

/** An attack of the game day that had not ended when someone asked to end the game day. */
export interface UnfinishedAttack {
  attack: GameDayAttack;
  stage: string;
  lifecycle: string;
}

/**
 * What `gameday end` (or End game day) answers while attacks of the game day still run: names
 * them and lets the person halt them first, end anyway, or keep going. `problems` says which
 * halts failed, when Halt all and end could not halt everything.
 */
export function gameDayEndWarning(
  record: GameDayRecord,
  unfinished: UnfinishedAttack[],
  problems: string[] = [],
): Message {
  const count = unfinished.length;
  const heading = `:warning: ${plural(count, 'attack')} of game day *${escapeMrkdwn(record.title)}* ${count === 1 ? 'is' : 'are'} still running. Ending the game day does not stop ${count === 1 ? 'it' : 'them'}.`;
  const lines = unfinished.map(
    ({ attack: a, stage, lifecycle }) =>
      `• ${attackName(a)} ${argsText(a.args.map(escapeMrkdwn))} on ${escapeMrkdwn(truncate(a.targetWords, 200))} · team ${escapeMrkdwn(a.teamName)} · started by <@${a.startedBy}> · ${stageLabel(stage, lifecycle)}`,
  );
  const blocks: KnownBlock[] = [section(heading), ...lineSections('Still running', lines, 3, 'attack')];
  if (problems.length)
    blocks.push(
      ...lineSections(
        'Not halted, so the game day goes on',
        problems.map((p) => `• ${p}`),
        2,
        'attack',
      ),
    );
  blocks.push(
    context(
      '*Halt all and end* halts these attacks with your platform session, then ends the game day. *End anyway* ends it now; its summary shows how each attack ends once it does.',
    ),
  );
  const ref = gameDayRefValue(record);
  blocks.push(
    actions(GAMEDAY_END_WARNING_ACTIONS, [
      button('Halt all and end', GAMEDAY_HALT_AND_END, { style: 'danger', value: ref }),
      button('End anyway', GAMEDAY_END_ANYWAY, { value: ref }),
      button('Cancel', GAMEDAY_END_CANCEL, { value: ref }),
    ]),
  );
  return {
    text: `${plural(count, 'attack')} of game day ${escapeMrkdwn(record.title)} ${count === 1 ? 'is' : 'are'} still running`,
    blocks,
  };
}

/** What ending a game day answers: what it halted first, or what of it still runs. */
export function gameDayEndedText(title: string, halted: number, running: number): string {
  const name = `*${escapeMrkdwn(title)}*`;
  if (halted)
    return `:octagonal_sign: Halted ${plural(halted, 'attack')} and ended game day ${name}. Its summary is in the channel, and shows each attack's outcome once the halt is done.`;
  const still = running
    ? ` ${plural(running, 'attack')} of it ${running === 1 ? 'is' : 'are'} still running: the summary shows how ${running === 1 ? 'it ends' : 'they end'} once ${running === 1 ? 'it does' : 'they do'}.`
    : '';
  return `:checkered_flag: Game day ${name} ended; its summary is in the channel.${still}`;
}

export const gameDayAlreadyEndedText = 'That game day has already ended.';

/** Cancel, on the end warning. */
export const gameDayKeptText = 'Cancelled: nothing was halted, and the game day goes on.';

/** An attack that Halt all and end could not halt, and why. */
export const notHaltedLine = (attack: Pick<GameDayAttack, 'type' | 'guid'>, reason: string) =>
  `*${escapeMrkdwn(attack.type)}* \`${attack.guid}\`: ${reason}`;

export const gameDayStartingText =
  'Someone is starting a game day in this channel right now; see its card in a moment.';

/** `gameday start` where one already runs. */
export const gameDayRunningText = (record: Pick<GameDayRecord, 'title' | 'facilitator'>, command: string) =>
  `A game day is already running here: *${escapeMrkdwn(record.title)}*, facilitated by <@${record.facilitator}>. End it with \`${command} gameday end\` first.`;

/** A start refused: the person could not run attacks in their selected team. */
export const gameDayStartRefusedText = (teamName: string, command: string) =>
  `You cannot start a game day with team *${escapeMrkdwn(teamName)}*: your platform role lacks the \`EXPERIMENTS_RUN\` privilege on it, so you could not run its attacks. Ask an owner of the team for a role that has it, or choose another team with \`${command} team\`.`;

/**
 * An end refused: only the facilitator, or someone whose platform role could halt the game day's
 * team, ends it. `loggedIn` says whether the person's own role was the reason.
 */
export function gameDayEndRefusedText(
  record: Pick<GameDayRecord, 'facilitator' | 'teamName'>,
  loggedIn: boolean,
  command: string,
): string {
  const team = record.teamName === undefined ? 'one of your teams' : `team *${escapeMrkdwn(record.teamName)}*`;
  const why = loggedIn
    ? 'Your platform role lacks that privilege.'
    : `You are not logged in: if your role has that privilege, log in with \`${command} login\` and try again.`;
  return `Only <@${record.facilitator}>, who started this game day, or someone with the \`HALT_WRITE\` privilege on ${team} can end it. ${why} The game day goes on.`;
}

/** `gameday start` done, with the guards it set (their lines), if any. */
export function gameDayStartedText(title: string, guardLines?: string): string {
  const guarded = guardLines === undefined ? '' : `\nGuards:\n${guardLines}`;
  return `:rocket: Game day *${escapeMrkdwn(title)}* started. Its card is in the channel; attacks started here go into its thread.${guarded}`;
}

/**
 * A change to a game day's guards refused by the person's own role: adding needs the game day's
 * team and EXPERIMENTS_RUN or HALT_WRITE there; removing that, or being its facilitator.
 */
export function gameDayGuardsRefusedText(
  record: Pick<GameDayRecord, 'facilitator' | 'teamName'>,
  change: 'add' | 'remove',
): string {
  const team = record.teamName === undefined ? 'one of your teams' : `team *${escapeMrkdwn(record.teamName)}*`;
  const who =
    change === 'add'
      ? `Only someone with the \`EXPERIMENTS_RUN\` or \`HALT_WRITE\` privilege on ${team} can add guards to this game day.`
      : `Only <@${record.facilitator}>, who started this game day, or someone with the \`EXPERIMENTS_RUN\` or \`HALT_WRITE\` privilege on ${team} can remove its guards.`;
  return `${who} Your platform login has neither there, so its guards were left as they were.`;
}

/** Guards removed from a running game day, one line each; those it did not have are named. */
export function gameDayGuardsRemovedText(title: string, removed: string[], missing: string[]): string {
  const gone = removed.length
    ? `:shield: Removed from game day *${escapeMrkdwn(title)}*: ${removed.map(escapeMrkdwn).join(', ')}.`
    : `Game day *${escapeMrkdwn(title)}* had none of those guards; nothing was removed.`;
  return missing.length && removed.length ? `${gone} It had no ${missing.map(escapeMrkdwn).join(', ')}.` : gone;
}

/** The guards set on a running game day, one line each. */
export const gameDayGuardsSetText = (title: string, lines: string) =>
  `:shield: Guards set on game day *${escapeMrkdwn(title)}*:\n${lines}`;

export const ambiguousGameDayIdText = (id: string) =>
  `Several game days of this channel have an id starting with \`${escapeMrkdwn(id)}\`; give more of it.`;

/** `gameday report` with no ended game day to share: none with that id, one still running, or none at all. */
export function noReportText(id: string | undefined, runningTitle: string | undefined, command: string): string {
  if (id)
    return `No ended game day of this channel has the id \`${escapeMrkdwn(id)}\`. Without an id, \`${command} gameday report\` shares the report of the last one that ended here.`;
  return runningTitle !== undefined
    ? `Game day *${escapeMrkdwn(runningTitle)}* is still running; its report is shared here when it ends.`
    : 'No game day has ended in this channel in the last 30 days, so there is no report to share.';
}
