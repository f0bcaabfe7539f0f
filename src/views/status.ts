import type { KnownBlock } from '@slack/types';
import type { CardRecord } from '../attacks/cards.ts';
import type { Freeze } from '../guardrails/freezes.ts';
import { freezeScopeText, frozenLine } from './errorReply.ts';
import { context, escapeMrkdwn, header, plural, section, slackDate } from './blocks.ts';
import type { Message } from './message.ts';
import { stageLabel } from './attacks/attackCard.ts';
import type { Watch } from '../attacks/watches.ts';
import { watchLine } from './attacks/watch.ts';
import { guardReadingText } from './gamedays/gameday.ts';
import { badged } from './gamedays/gamedayWords.ts';
import type { GameDayGuard } from '../gamedays/gamedayRecord.ts';

export const statusAttacksShown = 20;

/** A guard over the person's game days or live attacks, with what it guards. */
export interface StatusGuard extends GameDayGuard {
  /** In words, escaped: `game day *Drill* in <#C1>`, `*cpu* \`guid\``. */
  covers: string[];
}

/** Guards `status` lists; the rest are counted. */
export const statusGuardsShown = 20;

export interface StatusState {
  freezes: Freeze[];
  guards?: StatusGuard[] | undefined;
  gameDays: { channel: string; title: string; facilitator: string; startedAt: string; rehearsal?: true | undefined }[];
  /** Live attack cards of the person's teams, newest first. */
  live: CardRecord[];
  /** The watches of the channel status was asked in; undefined outside a channel. */
  watches?: Watch[] | undefined;
  command: string;
}

/** A titled list of lines, or the title and what stands when there is none. */
const listSection = (title: string, lines: string[], none: string) =>
  section(`*${title}*\n${lines.length ? lines.join('\n') : none}`);

/** The channel's watches, as `status` shows them. */
function watchesSection(watches: Watch[], command: string): KnownBlock {
  const paused = watches.some((w) => w.pausedAt)
    ? [`A paused watch resumes when someone with access runs \`${command} watch <team>\` here.`]
    : [];
  return listSection(
    'Watches in this channel',
    [...watches.map((w) => watchLine(w)), ...paused],
    `None: \`${command} watch\` gets a card here for every attack of your team, wherever it starts.`,
  );
}

/** One line per freeze, as App Home and `status` show them. */
export function freezeLines(freezes: Freeze[]): string[] {
  return freezes.map((f) => `:snowflake: ${freezeScopeText(f)}: ${frozenLine(f)}`);
}

/** `/chaos status`: what stands now, in the order it matters: freezes, game days, live attacks. */
export function statusMessage(state: StatusState): Message {
  const { command } = state;
  const blocks: KnownBlock[] = [header('Faultline now')];
  blocks.push(listSection('Freezes', freezeLines(state.freezes), 'None: attacks can start.'));
  const days = state.gameDays.map((d) => {
    const started = Number.isNaN(Date.parse(d.startedAt))
      ? ''
      : `, since ${slackDate(new Date(d.startedAt), '{time}')}`;
    return badged(
      d,
      `:dart: *${escapeMrkdwn(d.title)}* in <#${d.channel}>, facilitated by <@${d.facilitator}>${started}`,
    );
  });
  blocks.push(listSection('Game days', days, 'None running in your channels.'));
  const guards = state.guards ?? [];
  const guardLines = guards
    .slice(0, statusGuardsShown)
    .map(
      (g) =>
        `${guardReadingText(g)} · guards ${g.covers.slice(0, 5).join(', ')}${g.covers.length > 5 ? ` and ${g.covers.length - 5} more` : ''}`,
    );
  if (guards.length > guardLines.length) guardLines.push(`_and ${guards.length - guardLines.length} more_`);
  blocks.push(listSection('Guards', guardLines, 'None on your game days or live attacks.'));
  if (state.watches) blocks.push(watchesSection(state.watches, command));
  const shown = state.live.slice(0, statusAttacksShown);
  const attacks = shown.map(
    (c) =>
      `${stageLabel(c.stage, c.lifecycle)} *${escapeMrkdwn(c.type)}* in *${escapeMrkdwn(c.teamName)}* · <#${c.channel}> · by <@${c.startedBy.userId}>\n\`${c.guid}\``,
  );
  blocks.push(listSection('Live attacks started from Slack', attacks, 'None.'));
  if (state.live.length > shown.length)
    blocks.push(
      context(`and ${state.live.length - shown.length} more: \`${command} list active\` lists a team's attacks.`),
    );
  const summary = [
    state.freezes.length ? plural(state.freezes.length, 'freeze') : 'no freeze',
    plural(state.gameDays.length, 'game day'),
    plural(state.live.length, 'live attack'),
  ].join(', ');
  return { text: `Faultline now: ${summary}.`, blocks };
}
