import { stageWords } from '../attacks/attackCard.ts';
import { durationText } from './gameday.ts';
import { haltCount, type GameDayRecord } from '../../gamedays/gamedayRecord.ts';
import type { GameDayReport, ReportAttack, ReportProblem, ReportTarget, ReportTeam } from '../../gamedays/report.ts';
import { errorInBrief } from '../errorReply.ts';
import { plural } from '../blocks.ts';
import type { StepRehearsal } from '../../gamedays/plan.ts';
import { blastRadiusLine } from '../attacks/blastRadius.ts';
import { ruleText } from '../guardrails/approval.ts';
import { haltLines, markdownCode, markdownText, time } from './reportMarkdown.ts';

/** The target as created, in words, for an attack started outside the channel. */
function platformTargetText(attack: Extract<ReportTarget, { platform: unknown }>['platform']): string {
  const count = attack.total_clients ?? attack.targets.length;
  const kind = (attack.target_type ?? 'client').toLowerCase();
  const resolved = `${count} ${kind}${count === 1 ? '' : 's'}`;
  const target = attack.infra_target as
    | { type?: unknown; tags?: unknown; hosts?: { ids?: unknown }; containers?: { ids?: unknown; labels?: unknown } }
    | undefined;
  const pairs = (map: unknown) =>
    map && typeof map === 'object'
      ? Object.entries(map)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(',')
      : '';
  const how = [
    typeof target?.type === 'string' ? target.type : undefined,
    pairs(target?.tags) && `tags ${pairs(target?.tags)}`,
    pairs(target?.containers?.labels) && `labels ${pairs(target?.containers?.labels)}`,
    Array.isArray(target?.hosts?.ids) && `hosts ${target.hosts.ids.join(',')}`,
    Array.isArray(target?.containers?.ids) && `containers ${target.containers.ids.join(',')}`,
  ].filter(Boolean);
  return how.length ? `${resolved} (${how.join(', ')})` : resolved;
}

function targetText(target: ReportTarget): string {
  if (!target) return 'unknown targets';
  return 'words' in target ? target.words : platformTargetText(target.platform);
}

/** Why part of the report could not be read, as a clause; `of` says whose session was missing. */
function problemText(problem: ReportProblem, of: 'attack' | 'team'): string {
  if (problem.kind === 'failed') return errorInBrief(problem.error, { team: problem.team, subject: problem.subject });
  return of === 'attack'
    ? 'no platform session could reach the team'
    : 'your platform session does not reach this team';
}

/** Executions listed per attack in the file; the rest are counted. */
const executionsListed = 500;

/** A link only to http(s); anything else is shown as text. */
function markdownLink(label: string, url: string | undefined): string {
  if (!url || !/^https?:\/\//i.test(url)) return markdownText(label);
  return `[${markdownText(label)}](<${url.replace(/[<>\s]/g, encodeURIComponent)}>)`;
}

/** The report's title: a rehearsal's says so. */
export const reportTitle = (record: Pick<GameDayRecord, 'title' | 'rehearsal'>) =>
  `${record.rehearsal ? 'Rehearsal report' : 'Game day report'}: ${record.title}`;

/** The file's name: what it reports (a game day or a rehearsal), the title in safe characters, and the day it started. */
export function reportFilename(record: Pick<GameDayRecord, 'title' | 'startedAt' | 'rehearsal'>): string {
  const slug =
    record.title
      .normalize('NFKD')
      .replace(/[^\w-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60)
      .toLowerCase() || 'game-day';
  return `${record.rehearsal ? 'rehearsal-report' : 'game-day-report'}-${slug}-${record.startedAt.slice(0, 10)}.md`;
}

function outcome(attack: Pick<ReportAttack, 'stage' | 'lifecycle'>): string {
  const words = stageWords(attack.stage);
  if (attack.lifecycle === 'Error') return `${words} (failed)`;
  if (attack.lifecycle === 'Complete') return words;
  return `${words} (not over when the report was made)`;
}

function attackSection(attack: ReportAttack, index: number, name: (userId: string) => string): string[] {
  const lines = [`### ${index}. ${markdownText(attack.type)} ${markdownCode(attack.guid)}`, ''];
  const started = attack.chat
    ? `in the channel by ${markdownText(name(attack.chat.startedBy))}`
    : `outside the channel${attack.createSource ? ` (${markdownText(attack.createSource)})` : ''}`;
  lines.push(
    `- **Started:** ${started}${attack.createdBy ? `; created on the platform by ${markdownText(attack.createdBy)}` : ''}`,
  );
  lines.push(`- **Arguments:** ${attack.args.length ? markdownCode(attack.args.join(' ')) : 'none'}`);
  lines.push(`- **Target:** ${markdownText(targetText(attack.target))}`);
  lines.push(`- **Outcome:** ${markdownText(outcome(attack))}`);
  lines.push(
    `- **Times:** created ${time(attack.createdAt)}, started ${time(attack.startTime)}, ended ${attack.endTime ? time(attack.endTime) : '—'}`,
  );
  if (attack.haltedBy.length)
    lines.push(`- **Halted by:** ${attack.haltedBy.map((id) => markdownText(name(id))).join(', ')}`);
  if (attack.halt) lines.push(...haltLines(attack.halt, executionsListed));
  if (attack.executionsProblem) {
    lines.push(`- **Executions:** could not be read: ${markdownText(problemText(attack.executionsProblem, 'attack'))}`);
  } else if (!attack.executions.length) {
    lines.push('- **Executions:** none: the attack reached no target');
  } else {
    lines.push(`- **Executions** (${plural(attack.executions.length, 'target')}):`);
    for (const execution of attack.executions.slice(0, executionsListed)) {
      const detail = execution.error
        ? ` · error: ${markdownText(execution.error)}`
        : execution.output
          ? ` · ${markdownText(execution.output)}`
          : '';
      const stage = execution.stage ? stageWords(execution.stage) : 'unknown stage';
      lines.push(
        `  - ${markdownCode(execution.client_id ?? execution.guid ?? 'unknown target')}: ${markdownText(stage)}${execution.stage_lifecycle === 'Error' ? ' (failed)' : ''} · ${time(execution.start_time)} to ${execution.end_time ? time(execution.end_time) : '—'}${detail}`,
      );
    }
    const rest = attack.executions.length - executionsListed;
    if (rest > 0) lines.push(`  - and ${plural(rest, 'more target')}`);
  }
  if (attack.ticketsProblem)
    lines.push(`- **Tickets:** could not be read: ${markdownText(problemText(attack.ticketsProblem, 'attack'))}`);
  else if (attack.tickets.length) {
    lines.push(`- **Tickets** (${attack.tickets.length}):`);
    for (const ticket of attack.tickets) {
      const about = [ticket.summary, ticket.status]
        .filter(Boolean)
        .map((part) => markdownText(part!))
        .join(' · ');
      lines.push(`  - ${markdownLink(ticket.key, ticket.url)}${about ? `: ${about}` : ''}`);
    }
  } else lines.push('- **Tickets:** none');
  if (attack.platformNotes.length) {
    lines.push('- **Notes on the platform:**');
    for (const note of attack.platformNotes) lines.push(`  - ${markdownText(note)}`);
  }
  lines.push('');
  return lines;
}

function teamSection(team: ReportTeam, name: (userId: string) => string): string[] {
  const lines = [`## Team ${markdownText(team.name)}`, ''];
  if (team.watched) lines.push('_Watched from the channel._', '');
  if (team.problem)
    lines.push(
      `Attacks started outside the channel could not be read: ${markdownText(problemText(team.problem, 'team'))}. Only those started in the channel are listed.`,
      '',
    );
  if (team.noTracker) lines.push('The team has no tracker integration, so its attacks have no tickets.', '');
  if (team.more)
    lines.push(
      `The game day's window held more attacks than a report reads; the newest ${team.attacks.length} are listed.`,
      '',
    );
  if (!team.attacks.length) lines.push("No attacks in the game day's window.", '');
  team.attacks.forEach((attack, index) => lines.push(...attackSection(attack, index + 1, name)));
  return lines;
}

/** The full report of an ended game day, as Markdown; people by name, since a file has no mentions. */
export function gameDayReportMarkdown(report: GameDayReport, names: Record<string, string> = {}): string {
  const { record } = report;
  const name = (userId: string) => names[userId] ?? userId;
  const attacks = report.teams.flatMap((team) => team.attacks);
  const inChat = attacks.filter((a) => a.chat).length;
  const byOutcome = new Map<string, number>();
  for (const attack of attacks) byOutcome.set(outcome(attack), (byOutcome.get(outcome(attack)) ?? 0) + 1);
  const executions = attacks.reduce((total, a) => total + a.executions.length, 0);
  const tickets = attacks.reduce((total, a) => total + a.tickets.length, 0);
  const lines = [
    `# ${markdownText(reportTitle(record))}`,
    '',
    ...(record.rehearsal
      ? [
          '**A rehearsal:** each step went through the checks of a start at zero and nothing was created at the platform; attacks started in the channel meanwhile were real and are not part of it.',
          '',
        ]
      : []),
    `- **Facilitator:** ${markdownText(name(record.facilitator))}`,
    `- **Started:** ${time(record.startedAt)}`,
    `- **Ended:** ${record.endedAt ? `${time(record.endedAt)}, after ${durationText(record.startedAt, record.endedAt)}` : 'still running'}`,
    `- **Game day id:** ${markdownCode(record.id)}`,
    `- **Report:** made ${time(report.madeAt)} with the platform session of ${markdownText(name(report.madeBy))}. It lists every attack created in the game day's window in each team below, wherever it was started.`,
    '',
    '## Overview',
    '',
    ...(record.rehearsal
      ? [`- **Steps rehearsed:** ${rehearsed(record)} of ${record.plan?.steps.length ?? 0}`]
      : [
          `- **Attacks:** ${attacks.length} (${inChat} started in the channel, ${attacks.length - inChat} elsewhere) in ${plural(report.teams.length, 'team')}`,
          ...(byOutcome.size
            ? [
                `- **Outcomes:** ${[...byOutcome].map(([words, count]) => `${markdownText(words)}: ${count}`).join(', ')}`,
              ]
            : []),
          `- **Executions:** ${executions}`,
          `- **Tickets:** ${tickets}`,
        ]),
    `- **Halts:** ${haltCount(record)} · **Notes:** ${record.notes.length}`,
    '',
  ];
  if (record.plan?.steps.length) lines.push(...stepsTable(record, name));
  for (const team of report.teams) lines.push(...teamSection(team, name));

  const about = (guid: string | undefined) => {
    const attack = guid ? attacks.find((a) => a.guid === guid) : undefined;
    return guid ? `${attack ? `${markdownText(attack.type)} ` : ''}${markdownCode(guid)}` : 'the game day';
  };
  const channel: string[] = [];
  for (const halt of record.halts) {
    const what =
      halt.scope === 'everything'
        ? 'everything across the platform'
        : halt.scope === 'all' || !halt.guid
          ? 'all attacks'
          : about(halt.guid);
    channel.push(`- ${time(halt.at)}: ${markdownText(name(halt.by))} halted ${what}`);
  }
  for (const trip of record.trips ?? [])
    if (trip.halted.length)
      channel.push(
        `- ${time(trip.at)}: guard ${markdownText(trip.guard)} fired (${markdownText(trip.state)}) and halted ${trip.halted.map((a) => about(a.guid)).join(', ')}`,
      );
  for (const note of record.notes)
    channel.push(
      `- ${time(note.at)}: ${markdownText(name(note.by))} noted on ${about(note.guid)}: ${markdownText(note.text)}`,
    );
  for (const ticket of record.tickets)
    channel.push(
      `- ${time(ticket.at)}: ${markdownText(name(ticket.by))} filed ${markdownLink(ticket.key, ticket.url)} for ${about(ticket.guid)}`,
    );
  for (const refused of record.refused ?? []) {
    const verb = refused.unconfirmed ? 'tried to start (not confirmed by the platform)' : 'could not start';
    channel.push(
      `- ${time(refused.at)}: ${markdownText(name(refused.startedBy))} ${verb} ${markdownText(refused.type)} ${markdownCode(refused.args.join(' '))} in team ${markdownText(refused.teamName)}: ${markdownText(refused.reason.replace(/[*`]/g, ''))}`,
    );
  }
  if (channel.length) {
    channel.sort((a, b) => a.localeCompare(b));
    lines.push('## In the channel', '', ...channel, '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** A cell of a Markdown table: markdownText escapes the pipe that would end it, and folds lines. */
const cell = markdownText;

/** The plan's steps as a table: hypothesis, how its attack went, whether it held, the observation, the tickets. */
function stepsTable(record: GameDayRecord, name: (userId: string) => string): string[] {
  const plan = record.plan!;
  const answers = { held: 'held', 'not held': 'not held', unsure: 'unsure' } as const;
  const rows = plan.steps.map((step, index) => {
    const attack = step.source.kind === 'saved' ? `${step.source.name} (${step.request.type})` : step.request.type;
    const result =
      step.state === 'ended' && step.rehearsed
        ? rehearsedText(step.rehearsed)
        : step.state === 'ended' && step.ended
          ? outcome(step.ended)
          : step.state === 'vetoed'
            ? `vetoed by ${name(step.vetoed!.by)}: ${step.vetoed!.reason}`
            : step.state === 'not started'
              ? `did not start: ${step.notStarted!.reason.replace(/[*`]|<@([A-Z0-9]+)>/g, (_, id: string | undefined) => (id ? name(id) : ''))}`
              : step.state;
    const held = step.answer ? `${answers[step.answer.answer]} (${name(step.answer.by)})` : '';
    const tickets = step.guid ? record.tickets.filter((t) => t.guid === step.guid).map((t) => t.key) : [];
    return `| ${index + 1} | ${cell(attack)}${step.guid ? ` ${markdownCode(step.guid)}` : ''} | ${cell(step.hypothesis)} | ${cell(result)} | ${cell(held)} | ${cell(step.answer?.observation ?? '')} | ${cell(tickets.join(', '))} |`;
  });
  return [
    '## Steps',
    '',
    '| # | Attack | Hypothesis | Outcome | Held | Observation | Tickets |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ];
}

const rehearsed = (record: GameDayRecord) => record.plan?.steps.filter((step) => step.rehearsed).length ?? 0;

/** What a rehearsed step would have done, for the report's table. */
function rehearsedText({ targets, rule }: StepRehearsal): string {
  const hits = targets ? `would hit ${blastRadiusLine(targets)}` : 'the platform resolves its target only at a create';
  return `rehearsed, nothing created: ${hits}${rule ? `; would need approval because ${ruleText(rule)}` : ''}`;
}

/** Everyone the report names, by Slack user id. */
export function reportPeople(report: GameDayReport): Set<string> {
  const { record } = report;
  return new Set([
    record.facilitator,
    report.madeBy,
    ...report.teams.flatMap((team) =>
      team.attacks.flatMap((a) => [...(a.chat ? [a.chat.startedBy] : []), ...a.haltedBy]),
    ),
    ...record.halts.map((h) => h.by),
    ...record.notes.map((n) => n.by),
    ...record.tickets.map((t) => t.by),
    ...(record.refused ?? []).map((r) => r.startedBy),
  ]);
}
