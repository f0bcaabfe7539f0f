import type { Button, HomeView, KnownBlock } from '@slack/types';
import { actions, button, code, context, escapeMrkdwn, header, section, slackDate, plural } from './blocks.ts';
import { stageLabel } from './attacks/attackCard.ts';
import { listedRow, offersHaltAll, type ListedAttack } from './attacks/attackList.ts';
import { haltAllButton } from './attacks/halt.ts';
import { LOGIN_BUTTON } from './login/login.ts';
import { type Message, messageBlocks } from './message.ts';
import type { TeamChoice } from './login/team.ts';
import type { Freeze } from '../guardrails/freezes.ts';
import { freezeLines } from './status.ts';
import type { Watch } from '../attacks/watches.ts';
import { watchLine } from './attacks/watch.ts';
import { badged } from './gamedays/gamedayWords.ts';

export const HOME_VIEW = 'home';
/** Opens the team picker modal (the same as `team` without an argument). */
export const HOME_SWITCH_TEAM = 'home_switch_team';
/** Opens the attack builder modal. */
export const HOME_NEW_ATTACK = 'home_new_attack';

/** Active attacks shown with a Halt button each, recent ones, and game days, at most. */
export const homeActiveShown = 15;
export const homeRecentShown = 10;
export const homeGameDaysShown = 10;
export const homeWatchesShown = 10;

/** What App Home shows, gathered by the handler. */
export interface HomeState {
  login:
    | {
        identifier: string;
        company: string;
        teamId: string | undefined;
        teamName: string | undefined;
        teams: TeamChoice[];
        /** The privilege starting an attack in the current team needs, when the session lacks it. */
        cannotRun?: string | undefined;
        /** Whether the session may halt the current team's attacks (HALT_WRITE), and everything at once (HALT_ALL). */
        mayHalt?: boolean | undefined;
        mayHaltAll?: boolean | undefined;
      }
    | undefined;
  /** The current team's active attacks. */
  active: ListedAttack[];
  /** The current team's recently completed attacks, newest first. */
  recent: ListedAttack[];
  /** Game days running in channels the person is in. */
  gameDays: {
    channel: string;
    title: string;
    facilitator: string;
    startedAt: string;
    permalink?: string | undefined;
    rehearsal?: true | undefined;
  }[];
  /** Freezes of the person's teams (and of every team). */
  freezes?: Freeze[];
  /** Watches of the person's teams, in channels they are in. */
  watches?: Watch[];
  /** The slash command, for hints. */
  command: string;
  /** What the person's last action from Home did, shown at the top (Home has no thread to reply in). */
  notice?: Message | undefined;
}

function gameDayBlocks(gameDays: HomeState['gameDays']): KnownBlock[] {
  if (!gameDays.length) return [];
  const shown = gameDays.slice(0, homeGameDaysShown);
  const blocks: KnownBlock[] = [header('Game days')];
  for (const day of shown) {
    const started = Number.isNaN(Date.parse(day.startedAt)) ? '' : ` · started ${slackDate(new Date(day.startedAt))}`;
    const where = day.permalink ? `<#${day.channel}> · <${day.permalink}|Open>` : `<#${day.channel}>`;
    blocks.push(
      section(
        badged(day, `:dart: *${escapeMrkdwn(day.title)}* in ${where}\nFacilitated by <@${day.facilitator}>${started}`),
      ),
    );
  }
  if (gameDays.length > shown.length)
    blocks.push(context(`and ${plural(gameDays.length - shown.length, 'more game day')}.`));
  return blocks;
}

function watchBlocks(watches: Watch[], command: string): KnownBlock[] {
  if (!watches.length) return [];
  const shown = watches.slice(0, homeWatchesShown);
  const blocks: KnownBlock[] = [
    header('Watched channels'),
    section(shown.map((w) => watchLine(w, { channel: true })).join('\n')),
  ];
  const notes = [];
  if (watches.length > shown.length)
    notes.push(`and ${plural(watches.length - shown.length, 'more watch', 'more watches')}.`);
  if (shown.some((w) => w.pausedAt))
    notes.push(`A paused watch resumes when someone with access runs \`${command} watch <team>\` in its channel.`);
  if (notes.length) blocks.push(context(notes.join(' ')));
  return blocks;
}

function attackBlocks(state: HomeState, teamId: string, teamName: string, command: string): KnownBlock[] {
  const blocks: KnownBlock[] = [header(`Active attacks · ${teamName}`)];
  const active = state.active.slice(0, homeActiveShown);
  if (!active.length) blocks.push(section(`No active attacks in team *${escapeMrkdwn(teamName)}*.`));
  const mayHalt = state.login?.mayHalt;
  blocks.push(...active.map((attack) => listedRow(attack, { teamId, mayHalt })));
  if (state.active.length > active.length) {
    blocks.push(context(`and ${state.active.length - active.length} more: \`${command} list active\` lists them all.`));
  }
  if (state.login?.mayHaltAll !== false && offersHaltAll(state.active))
    blocks.push(actions('home_halt_all', [haltAllButton()]));
  const recent = state.recent.slice(0, homeRecentShown);
  if (recent.length) {
    blocks.push(header('Recent attacks'));
    blocks.push(...recent.map((attack) => listedRow(attack, { teamId })));
    blocks.push(context(`\`${command} list completed\` lists more.`));
  }
  return blocks;
}

const homeTab = (blocks: KnownBlock[]): HomeView => ({ type: 'home', callback_id: HOME_VIEW, blocks });

/** The App Home tab: login state, team, attacks with Halt buttons, and running game days. */
export function homeView(state: HomeState): HomeView {
  const { command } = state;
  const blocks: KnownBlock[] = [header('Faultline')];
  if (state.notice) blocks.push(...messageBlocks(state.notice));
  const login = state.login;
  if (!login) {
    blocks.push(
      section(
        'Run failure-injection attacks from Slack, halt them in one click, and file tracker tickets from what you saw.',
      ),
      section("Log in with your platform account to see your team's attacks here."),
      actions('home_login', [button('Log in', LOGIN_BUTTON, { style: 'primary' })]),
    );
    blocks.push(...gameDayBlocks(state.gameDays));
    return homeTab(blocks);
  }
  const team = login.teamId ? (login.teamName ?? login.teamId) : undefined;
  blocks.push(
    section(
      `Logged in as *${escapeMrkdwn(login.identifier)}* at *${escapeMrkdwn(login.company)}*.\n${team ? `Team: *${escapeMrkdwn(team)}*` : 'No team selected yet.'}`,
    ),
  );
  const buttons: Button[] = [];
  if (team && !login.cannotRun) buttons.push(button('New attack', HOME_NEW_ATTACK, { style: 'primary' }));
  if (!team || login.teams.length > 1)
    buttons.push(button(team ? 'Switch team' : 'Choose a team', HOME_SWITCH_TEAM, team ? {} : { style: 'primary' }));
  if (buttons.length) blocks.push(actions('home_actions', buttons));
  if (team && login.cannotRun)
    blocks.push(
      context(
        `No New attack here: your platform role lacks the \`${login.cannotRun}\` privilege on team *${escapeMrkdwn(team)}*. Ask an owner of the team for a role that has it${login.teams.length > 1 ? ', or switch team' : ''}.`,
      ),
    );
  if (state.freezes?.length)
    blocks.push(
      section([...freezeLines(state.freezes), `No attack starts there until \`${command} unfreeze\`.`].join('\n')),
    );
  if (login.teamId && team) blocks.push(...attackBlocks(state, login.teamId, team, command));
  blocks.push(...watchBlocks(state.watches ?? [], command));
  blocks.push(...gameDayBlocks(state.gameDays));
  return homeTab(blocks);
}

/** At the top of Home once an attack halted there has ended: what the halt came to. */
export function homeHaltEndedNotice(guid: string, stage: string, lifecycle: string): Message {
  const text = `:octagonal_sign: Attack ${code(guid)} you halted has ended: ${stageLabel(stage, lifecycle)}.`;
  return { text: text.replace(/[*`]/g, ''), blocks: [section(text)] };
}

/** App Home when it cannot be drawn (the store is away): what happened, in place of a blank tab. */
export function homeNoticeView(message: Message): HomeView {
  return homeTab([header('Faultline'), ...messageBlocks(message)]);
}
