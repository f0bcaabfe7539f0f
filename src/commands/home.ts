import type { HomeView } from '@slack/types';
import type { Services } from '../services.ts';
import { listed, listedKubernetes, type ListedAttack, withListedState } from '../views/attacks/attackList.ts';
import type { Message } from '../views/message.ts';
import { haltSentState } from '../attacks/lifecycle.ts';
import { StoreUnavailableError } from '../store/errors.ts';
import { describeError } from '../views/errorReply.ts';
import { homeHaltEndedNotice, homeNoticeView, homeView, type HomeState } from '../views/home.ts';
import { teamChoices, teamPickerModal } from '../views/login/team.ts';
import type { Action, Reply } from './command.ts';
import type { Actor, Login } from '../store/sessions.ts';
import type { Watch } from '../attacks/watches.ts';
import { mayHalt, mayHaltAll, mayRunAttacks, RUN_PRIVILEGE, teamName } from '../attacks/access.ts';
import { openBuilder } from './attacks/attack.ts';

/** The channels a person is in, asked of Slack once however often it is called; none when Slack cannot say. */
function memberChannels(deps: Services, actor: Actor): () => Promise<Set<string>> {
  let asked: Promise<Set<string>> | undefined;
  return () =>
    (asked ??= deps.slack.channelsOf(actor.userId).catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'could not read the channels of a person for App Home');
      return new Set<string>();
    }));
}

/** Watches of the person's teams in channels they are in (a private channel's watch stays its members'). */
async function watchesFor(deps: Services, login: Login, channelsOf: () => Promise<Set<string>>): Promise<Watch[]> {
  const teams = new Set(login.session.teams.map((t) => t.identifier));
  const watches = (await deps.attacks.watches.all()).filter((w) => teams.has(w.teamId));
  if (!watches.length) return [];
  const channels = await channelsOf();
  return watches.filter((w) => channels.has(w.channel));
}

/**
 * Game days running in channels the person is in. Slack answers membership for the bot's scopes;
 * when it cannot (a missing scope, a hiccup), none are shown rather than someone else's.
 */
export async function gameDaysFor(
  deps: Services,
  actor: Actor,
  channelsOf: () => Promise<Set<string>> = memberChannels(deps, actor),
): Promise<HomeState['gameDays']> {
  const running = await deps.gamedays.days.allRunning();
  if (!running.length) return [];
  const channels = await channelsOf();
  return running
    .filter((g) => channels.has(g.channel))
    .map((g) => ({
      channel: g.channel,
      title: g.title,
      facilitator: g.facilitator,
      startedAt: g.startedAt,
      rehearsal: g.rehearsal,
    }));
}

/** What one redraw of Home shows besides the person's state. */
export interface HomeRedraw {
  /** What the person's action from Home did: Home has no thread or response_url to answer in. */
  notice?: Message | undefined;
  /**
   * An attack whose halt this person just sent: its row shows it halting, without a Halt button,
   * and Home is followed to the attack's end (followHomeHalts).
   */
  halting?: string | undefined;
}

/**
 * The background pass over attacks halted from App Home: once one has ended, the Home of whoever
 * halted it is drawn again, its row among the recent attacks and what the halt came to at the top.
 */
export async function followHomeHalts(deps: Services): Promise<void> {
  for await (const { actor, guid, state } of deps.attacks.endedHomeHalts()) {
    await publishHome(actor, deps, {
      notice: homeHaltEndedNotice(guid, state.stage ?? '', state.stage_lifecycle ?? ''),
    });
  }
}

/**
 * App Home: published when opened and after the person acts from it. While the store is away it
 * says so, as a command would, rather than leave the tab blank or showing what it showed before.
 */
export async function publishHome(actor: Actor, deps: Services, redraw: HomeRedraw = {}): Promise<void> {
  let view: HomeView;
  try {
    view = homeView({ ...(await homeState(actor, deps, redraw.halting)), notice: redraw.notice });
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    deps.logger.warn({ err: error }, 'store unreachable; App Home says so');
    view = homeNoticeView(describeError(error, { command: deps.command }));
  }
  await deps.slack.publishHome(actor.userId, view);
}

async function homeState(actor: Actor, deps: Services, halting: string | undefined): Promise<HomeState> {
  const channelsOf = memberChannels(deps, actor);
  const state: HomeState = {
    login: undefined,
    active: [],
    recent: [],
    gameDays: await gameDaysFor(deps, actor, channelsOf),
    command: deps.command,
  };
  const login = await deps.login.current(actor);
  if (login && halting) await deps.attacks.followHomeHalt(actor, login, halting);
  if (login) {
    state.watches = await watchesFor(deps, login, channelsOf);
    state.login = {
      identifier: login.session.identifier ?? 'you',
      company: login.session.company_name ?? 'your company',
      teamId: login.team?.identifier,
      teamName: login.team ? teamName(login.team) : undefined,
      teams: teamChoices(login.session.teams),
      cannotRun: login.team && !mayRunAttacks(login.team) ? RUN_PRIVILEGE : undefined,
      mayHalt: login.team ? mayHalt(login.team) : undefined,
      mayHaltAll: mayHaltAll(login),
    };
    state.freezes = await deps.guardrails.freezes.touching(login.session.teams.map((t) => t.identifier));
    if (login.team) {
      try {
        const read = await deps.attacks.homeAttacks(login, login.team);
        const kubernetes = read.kubernetes.map(listedKubernetes);
        const newestFirst = (a: ListedAttack, b: ListedAttack) => (b.startedAt ?? '').localeCompare(a.startedAt ?? '');
        state.active = [...read.active.map(listed), ...kubernetes.filter((a) => a.active)]
          .map((row) => (row.guid === halting ? withListedState(row, haltSentState) : row))
          .sort(newestFirst);
        state.recent = [...read.recent.map(listed), ...kubernetes.filter((a) => !a.active)]
          .sort(newestFirst)
          .slice(0, 10);
      } catch (error) {
        // Home still shows who and where the person is; the lists come back on the next refresh.
        deps.logger.warn({ err: error }, 'could not read attacks for App Home');
      }
    }
  }
  return state;
}

export async function switchTeamFromHome(action: Action, deps: Services): Promise<Reply> {
  const login = await deps.login.require(action.actor);
  return { kind: 'openModal', view: teamPickerModal(teamChoices(login.session.teams), login.team?.identifier) };
}

export async function newAttackFromHome(action: Action, deps: Services): Promise<Reply> {
  return openBuilder(deps, action.actor, { channel: undefined, responseUrl: undefined });
}
