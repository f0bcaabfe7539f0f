import type { KnownBlock, SectionBlock } from '@slack/types';
import {
  gameDayRefValue,
  type GameDayAttack,
  type GameDayOutcomes,
  type GameDayRecord,
  type GameDayRefusal,
} from '../../gamedays/gamedayRecord.ts';
import {
  actions,
  button,
  code,
  context,
  escapeMrkdwn,
  fields,
  header,
  limits,
  section,
  truncate,
  plural,
} from '../blocks.ts';
import { argsText, stageLabel } from '../attacks/attackCard.ts';
import { stopTimes } from '../attacks/halt.ts';
import type { Message } from '../message.ts';
import { planCardBlocks } from './plan.ts';
import { summaryStepLines } from './planWords.ts';
import { badged, badgedHeader } from './gamedayWords.ts';
import {
  attackName,
  counters,
  durationText,
  failureText,
  GAMEDAY_END_ANYWAY,
  GAMEDAY_END_CANCEL,
  GAMEDAY_END_WARNING_ACTIONS,
  GAMEDAY_FILE_TICKET,
  GAMEDAY_HALT_AND_END,
  GAMEDAY_SUMMARY_ACTIONS,
  gameDayGuardsText,
  issueLink,
  tripOutcome,
  when,
} from './gameday.ts';

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

/** An attack's outcome in the summary: how it ended, or that the summary follows it until it does. */
function outcomeText(outcome: GameDayOutcomes[string] | undefined): string {
  if (!outcome) return ':grey_question: outcome unknown';
  if (outcome.lifecycle === 'Error') return failureText(outcome.stage);
  if (outcome.lifecycle === 'Complete') return stageLabel(outcome.stage, outcome.lifecycle);
  return `${stageLabel(outcome.stage, outcome.lifecycle)} _(not over yet: shown here once it ends)_`;
}

/** `• name args on target · team t`: an attack, or a start, as the summary lists it. */
const attackBullet = (name: string, a: Pick<GameDayRefusal, 'args' | 'targetWords' | 'teamName'>) =>
  `• ${name} ${argsText(a.args.map(escapeMrkdwn))} on ${escapeMrkdwn(truncate(a.targetWords, 200))} · team ${escapeMrkdwn(a.teamName)}`;

const refusalLine = (r: GameDayRefusal) =>
  `${attackBullet(`*${escapeMrkdwn(r.type)}*`, r)} · tried by <@${r.startedBy}> ${when(r.at)}: ${r.reason}`;

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
  const parts = [attackBullet(attackName(a), a), `started by <@${a.startedBy}>`, outcomeText(outcome)];
  if (haltedBy.size) parts.push(`halted by ${[...haltedBy].map((id) => `<@${id}>`).join(', ')}`);
  if (outcome?.halt?.stops?.length)
    parts.push(
      `halt ${outcome.halt.verified ? 'verified' : 'not verified'}: ${stopTimes({ sentAt: outcome.halt.haltedAt, stops: outcome.halt.stops }, 5)}`,
    );
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
    header(badgedHeader(record, `Game day summary: ${record.title}`)),
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
      : [
          section(
            record.rehearsal
              ? '*Attacks*\nNone: a rehearsal creates nothing at the platform.'
              : '*Attacks*\nNo attacks were started in the channel.',
          ),
        ]),
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
  return { text: badged(record, text), blocks };
}

/** Attacks listed in `gameday status`, newest last. */
const statusAttacksShown = 10;

/** `gameday status`: the channel's game day so far. */
export function gameDayStatusMessage(record: GameDayRecord, outcomes: GameDayOutcomes): Message {
  const ended = record.endedAt;
  const status = ended ? `ended after ${durationText(record.startedAt, ended)}` : 'running';
  const blocks: KnownBlock[] = [
    section(
      badged(
        record,
        `:dart: Game day *${escapeMrkdwn(record.title)}* · ${ended ? `ended ${when(ended)} after ${durationText(record.startedAt, ended)}` : 'running'}\nFacilitated by <@${record.facilitator}> · started ${when(record.startedAt)}`,
      ),
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
  return { text: badged(record, `Game day ${escapeMrkdwn(record.title)}: ${status}`), blocks };
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
      `${attackBullet(attackName(a), a)} · started by <@${a.startedBy}> · ${stageLabel(stage, lifecycle)}`,
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
