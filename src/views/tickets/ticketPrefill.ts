import type { CardRecord } from '../../attacks/cards.ts';
import type { Attack } from '../../client/schemas.ts';
import { summaryMaxLength } from '../../tickets/service.ts';
import { durationText } from '../gamedays/gameday.ts';
import type { GameDayOutcomes, GameDayRecord } from '../../gamedays/gamedayRecord.ts';
import type { GameDayPlan, HypothesisAnswer } from '../../gamedays/plan.ts';
import { truncate, plural } from '../blocks.ts';
import { stageWords } from '../attacks/attackCard.ts';

import { descriptionMaxLength } from './ticket.ts';

export type TicketSource = (
  | { card: CardRecord; attack?: Attack | undefined }
  | { card?: CardRecord | undefined; attack: Attack }
) & {
  /** Link to the attack card in Slack. */
  permalink?: string | undefined;
  /** The platform's web UI base, as in PLATFORM_APP_URL. */
  appUrl?: string | undefined;
  /** People's names by Slack user id (from users.info); an id without one stands for itself. */
  names?: Record<string, string> | undefined;
};

/** A person named for text read outside Slack, where a mention cannot be resolved. */
const nameOf = (names: Record<string, string> | undefined, userId: string) => names?.[userId] ?? userId;
/** Resolved target ids listed in a description; the rest are counted. */
const listedTargets = 50;

function targetWordsOf(attack: Attack): string {
  const count = attack.total_clients ?? attack.targets.length;
  return plural(count, (attack.target_type ?? 'client').toLowerCase());
}

/** Summary and description for a ticket about an attack, in plain text: the tracker does not read mrkdwn. */
export function ticketPrefill(source: TicketSource): { summary: string; description: string } {
  const { card, attack } = source;
  const guid = card?.guid ?? attack?.guid ?? '';
  const type = card?.type ?? attack?.infra_command?.type ?? 'unknown';
  const args = card?.args ?? attack?.args ?? [];
  const targetWords = card?.targetWords ?? (attack ? targetWordsOf(attack) : 'unknown targets');
  const stage = attack?.stage ?? card?.stage ?? 'Unknown';
  const lifecycle = attack?.stage_lifecycle ?? card?.lifecycle;
  const summary = truncate(`Chaos attack ${type} on ${targetWords}: ${stageWords(stage)}`, summaryMaxLength);

  const lines = [`Chaos attack ${type} on ${targetWords}${card ? `, team ${card.teamName}` : ''}.`, ''];
  const add = (name: string, value: string | undefined) => {
    if (value) lines.push(`${name}: ${value}`);
  };
  add('Attack', guid);
  add('Type', type);
  add('Arguments', args.length ? args.join(' ') : 'none');
  add('Target', targetWords);
  const resolved = attack?.targets ?? [];
  if (resolved.length) {
    const more = resolved.length > listedTargets ? `, and ${resolved.length - listedTargets} more` : '';
    add(`Resolved targets (${resolved.length})`, `${resolved.slice(0, listedTargets).join(', ')}${more}`);
  }
  add('Team', card?.teamName);
  add('Stage', `${stageWords(stage)}${lifecycle ? ` (${lifecycle})` : ''}`);
  const platformUser = card?.startedByPlatform ?? attack?.create_user;
  // A card a watched channel posted names no Slack starter: the attack started on the platform.
  const starter = [
    card && !card.origin ? `${nameOf(source.names, card.startedBy.userId)} in Slack` : undefined,
    platformUser ? `${platformUser} on the platform` : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  add('Started by', starter);
  const halts = card?.haltedBy ?? [];
  add('Halted by', halts.map((halt) => `${nameOf(source.names, halt.userId)} at ${halt.at}`).join('; '));
  add('Created', attack?.created_at ?? card?.createdAt);
  add('Started', attack?.start_time ?? card?.startTime);
  add('Ended', attack?.end_time ?? card?.endTime ?? 'still running');
  const notes = Object.values(attack?.annotations ?? card?.annotations ?? {});
  if (notes.length) lines.push('Notes:', ...notes.slice(-10).map((note) => `- ${truncate(note, 280)}`));
  add('Slack card', source.permalink);
  add('Platform', source.appUrl && guid ? `${source.appUrl}/attacks/${guid}` : undefined);
  return { summary, description: truncate(lines.join('\n'), descriptionMaxLength) };
}

/** A time as a tracker shows it, plain and in UTC: `2026-03-02 10:00 UTC`, or only `10:00 UTC` within the day. */
function readableTime(iso: string, sameDayAs?: string): string {
  if (Number.isNaN(Date.parse(iso))) return iso;
  const [date, time] = new Date(iso).toISOString().split('T') as [string, string];
  const day = sameDayAs && !Number.isNaN(Date.parse(sameDayAs)) ? new Date(sameDayAs).toISOString().slice(0, 10) : '';
  return `${date === day ? '' : `${date} `}${time.slice(0, 5)} UTC`;
}

/** Slack words made plain for a tracker: mentions as names, no mrkdwn marks. */
const plainWords = (text: string, name: (userId: string) => string) =>
  text.replace(/<@([A-Z0-9]+)>/g, (_, id: string) => name(id)).replace(/[*`]/g, '');

const verdicts: Record<HypothesisAnswer, string> = {
  held: 'held',
  'not held': 'did not hold',
  unsure: 'unsure whether it held',
};

/** One line per plan step: what it ran, its hypothesis, how it went, and the verdict on it. */
function planLines(plan: GameDayPlan, name: (userId: string) => string): string[] {
  if (!plan.steps.length) return [];
  const lines = plan.steps.map((step, index) => {
    const title = step.source.kind === 'saved' ? step.source.name : step.request.type;
    const outcome =
      step.state === 'ended'
        ? step.ended
          ? stageWords(step.ended.stage)
          : 'ended'
        : step.state === 'vetoed'
          ? `vetoed by ${name(step.vetoed!.by)}: ${step.vetoed!.reason}`
          : step.state === 'skipped'
            ? step.skipped?.by
              ? `skipped by ${name(step.skipped.by)}`
              : 'not run: the game day ended during its countdown'
            : step.state === 'not started'
              ? `did not start: ${plainWords(step.notStarted!.reason, name)}`
              : step.state === 'planned'
                ? 'not run'
                : step.state;
    const answer = step.answer;
    const verdict = answer
      ? `${verdicts[answer.answer]}, said ${name(answer.by)}${answer.observation ? `: ${answer.observation}` : ''}`
      : step.state === 'ended'
        ? 'hypothesis not answered'
        : '';
    return `${index + 1}. ${title}: ${step.hypothesis} · ${[outcome, verdict].filter(Boolean).join(' · ')}`;
  });
  return ['', `Plan (${plural(plan.steps.length, 'step')}):`, ...lines];
}

/** Summary and description for one ticket about a whole game day, in plain text, people by name. */
export function gameDayTicketPrefill(
  record: GameDayRecord,
  outcomes: GameDayOutcomes,
  permalink?: string,
  names?: Record<string, string>,
): { summary: string; description: string } {
  const day = record.startedAt.slice(0, 10);
  const name = (userId: string) => nameOf(names, userId);
  const lines = [
    `Game day: ${record.title}`,
    `Facilitator: ${name(record.facilitator)}`,
    `Started: ${readableTime(record.startedAt)}${record.endedAt ? `, ended ${readableTime(record.endedAt)} (${durationText(record.startedAt, record.endedAt)})` : ' (still running)'}`,
    ...(permalink ? [`Game-day card: ${permalink}`] : []),
    ...planLines(record.plan ?? { steps: [] }, name),
    '',
    `Attacks (${record.attacks.length}):`,
    ...record.attacks.map((a) => {
      const outcome = outcomes[a.guid];
      const halted = outcome?.haltedBy.length ? `, halted by ${outcome.haltedBy.map(name).join(', ')}` : '';
      return `- ${a.type} ${a.args.join(' ')} on ${a.targetWords} (team ${a.teamName}), started by ${name(a.startedBy)}: ${stageWords(outcome?.stage ?? 'unknown')}${halted} [${a.guid}]`;
    }),
    ...(record.notes.length
      ? [
          '',
          'Notes:',
          ...record.notes.map(
            (n) => `- ${n.text} (${name(n.by)}, ${readableTime(n.at, record.startedAt)}) [${n.guid}]`,
          ),
        ]
      : []),
    ...(record.tickets.length
      ? ['', 'Tickets:', ...record.tickets.map((t) => `- ${t.key}${t.url ? ` ${t.url}` : ''}`)]
      : []),
  ];
  return {
    summary: truncate(`Game day: ${record.title} (${day})`, summaryMaxLength),
    description: truncate(lines.join('\n'), descriptionMaxLength),
  };
}
