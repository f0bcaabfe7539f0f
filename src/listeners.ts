import { commandEntry } from './commands/index.ts';
import { once } from './commands/command.ts';
import { steps } from './commands/workflow/workflowSteps.ts';
import { slackbotTools } from './commands/slackbot/tools.ts';
import { builderChanged, submitBuilder } from './commands/attacks/attack.ts';
import { cancelPreview, startFromPreview } from './commands/attacks/preview.ts';
import { haltAgainFromButton, haltAllConfirmed, haltFromButton } from './commands/attacks/halt.ts';
import { stillHere } from './commands/attacks/presence.ts';
import { PRESENCE_HERE } from './views/attacks/presence.ts';
import { nextListPage } from './commands/attacks/list.ts';
import {
  endLinkedSession,
  forgotPassword,
  openLogin,
  securePageOpened,
  submitLogin,
  submitPasswordReset,
} from './commands/login/login.ts';
import { openNote, submitNote } from './commands/attacks/note.ts';
import { showFromButton } from './commands/attacks/show.ts';
import { submitTeamPicker, suggestTeams } from './commands/login/session.ts';
import { submitGuardPicker } from './commands/gamedays/guards.ts';
import { suggestAlerts, suggestMonitors } from './commands/gamedays/guardSearch.ts';
import {
  endGameDayAnyway,
  endGameDayFromCard,
  haltAndEndGameDay,
  keepGameDay,
} from './commands/gamedays/gamedayEnd.ts';
import { approve, reject } from './commands/guardrails/approval.ts';
import { deleteSavedFromButton, runSavedFromButton } from './commands/attacks/saved.ts';
import { SAVED_DELETE, SAVED_RUN } from './views/attacks/savedAttacks.ts';
import { automaticFromButton, changePlanFromButton, openAddStep, runNextFromButton } from './commands/gamedays/plan.ts';
import { submitStep } from './commands/gamedays/addStep.ts';
import { countdownAction, openAnswer, openVeto, submitAnswer, submitVeto } from './commands/gamedays/countdown.ts';
import {
  COUNTDOWN_DELAY,
  COUNTDOWN_SKIP,
  COUNTDOWN_START_NOW,
  COUNTDOWN_VETO,
  STEP_HELD,
  STEP_NOT_HELD,
  STEP_UNSURE,
} from './views/gamedays/countdown.ts';
import { PLAN_ADD_STEP, PLAN_AUTO, PLAN_MOVE_UP, PLAN_REMOVE, PLAN_RUN_NEXT } from './views/gamedays/plan.ts';
import { PLAN_STEP_VIEW, STEP_ANSWER_VIEW, STEP_VETO_VIEW } from './views/gamedays/stepForms.ts';
import { APPROVAL_APPROVE, APPROVAL_REJECT } from './views/guardrails/approval.ts';
import { followHomeHalts, newAttackFromHome, publishHome, switchTeamFromHome } from './commands/home.ts';
import {
  fileTicketForGameDay,
  fileTicketFromCard,
  fileTicketFromMessage,
  submitTicket,
  submitTicketProject,
} from './commands/tickets/ticket.ts';
import {
  GAMEDAY_END,
  GAMEDAY_END_ANYWAY,
  GAMEDAY_END_CANCEL,
  GAMEDAY_FILE_TICKET,
  GAMEDAY_HALT_AND_END,
} from './views/gamedays/gameday.ts';
import { HOME_NEW_ATTACK, HOME_SWITCH_TEAM } from './views/home.ts';
import { TICKET_PROJECT_VIEW, TICKET_VIEW } from './views/tickets/ticket.ts';
import type { Listeners } from './slack/adapter.ts';
import {
  ATTACK_BUILDER_VIEW,
  ATTACK_TARGET_KIND,
  ATTACK_TEAM,
  ATTACK_TYPE_SELECT,
} from './views/attacks/builderFields.ts';
import { ADD_NOTE, ATTACK_DETAILS, FILE_TICKET, HALT_AGAIN, HALT_ATTACK } from './views/attacks/attackCard.ts';
import { LIST_NEXT_PAGE } from './views/attacks/attackList.ts';
import { ATTACK_CANCEL, ATTACK_START } from './views/attacks/attackPreview.ts';
import { HALT_ALL_CONFIRMED } from './views/attacks/halt.ts';
import {
  FORGOT_PASSWORD_BUTTON,
  LOGIN_BUTTON,
  LOGIN_PAGE_BUTTON,
  LOGIN_VIEW,
  RESET_PASSWORD_VIEW,
  END_LINKED_SESSION_BUTTON,
  LOGIN_SSO_BUTTON,
} from './views/login/login.ts';
import { NOTE_VIEW } from './views/attacks/note.ts';
import { GUARD_ALERTS, GUARD_MONITORS, GUARD_PICKER_VIEW } from './views/guardrails/guards.ts';
import { TEAM_CHOICE, TEAM_PICKER_VIEW } from './views/login/team.ts';

/** The message shortcut "File tracker ticket" (manifest.yml). */
export const FILE_TICKET_SHORTCUT = 'file_ticket';

/**
 * Every slash command, action id, view callback and options request Faultline answers. An entry
 * that changes state is `once`: the adapter runs it once per delivery (slash subcommands declare
 * it where they declare their arguments).
 */
export const listeners: Listeners = {
  command: commandEntry,
  actions: {
    [LOGIN_BUTTON]: openLogin,
    [FORGOT_PASSWORD_BUTTON]: forgotPassword,
    [LOGIN_PAGE_BUTTON]: securePageOpened,
    [LOGIN_SSO_BUTTON]: securePageOpened,
    [END_LINKED_SESSION_BUTTON]: endLinkedSession,
    [ATTACK_START]: startFromPreview,
    [ATTACK_CANCEL]: cancelPreview,
    [ATTACK_TYPE_SELECT]: builderChanged,
    [ATTACK_TARGET_KIND]: builderChanged,
    [HALT_ATTACK]: haltFromButton,
    [HALT_AGAIN]: haltAgainFromButton,
    [PRESENCE_HERE]: once(stillHere),
    [HALT_ALL_CONFIRMED]: once(haltAllConfirmed),
    [ADD_NOTE]: openNote,
    [ATTACK_DETAILS]: showFromButton,
    [LIST_NEXT_PAGE]: nextListPage,
    [FILE_TICKET]: fileTicketFromCard,
    [GAMEDAY_END]: once(endGameDayFromCard),
    [GAMEDAY_HALT_AND_END]: once(haltAndEndGameDay),
    [GAMEDAY_END_ANYWAY]: once(endGameDayAnyway),
    [GAMEDAY_END_CANCEL]: keepGameDay,
    [GAMEDAY_FILE_TICKET]: fileTicketForGameDay,
    [HOME_SWITCH_TEAM]: switchTeamFromHome,
    [HOME_NEW_ATTACK]: newAttackFromHome,
    [APPROVAL_APPROVE]: once(approve),
    [APPROVAL_REJECT]: once(reject),
    [SAVED_RUN]: runSavedFromButton,
    [SAVED_DELETE]: once(deleteSavedFromButton),
    [PLAN_ADD_STEP]: openAddStep,
    [PLAN_RUN_NEXT]: once(runNextFromButton),
    [PLAN_AUTO]: once(automaticFromButton),
    [PLAN_MOVE_UP]: once(changePlanFromButton),
    [PLAN_REMOVE]: once(changePlanFromButton),
    [COUNTDOWN_START_NOW]: once(countdownAction),
    [COUNTDOWN_DELAY]: once(countdownAction),
    [COUNTDOWN_SKIP]: once(countdownAction),
    [COUNTDOWN_VETO]: openVeto,
    [STEP_HELD]: openAnswer,
    [STEP_NOT_HELD]: openAnswer,
    [STEP_UNSURE]: openAnswer,
  },
  views: {
    [LOGIN_VIEW]: submitLogin,
    [RESET_PASSWORD_VIEW]: submitPasswordReset,
    [TEAM_PICKER_VIEW]: once(submitTeamPicker),
    [ATTACK_BUILDER_VIEW]: submitBuilder,
    [NOTE_VIEW]: once(submitNote),
    [TICKET_PROJECT_VIEW]: submitTicketProject,
    [TICKET_VIEW]: submitTicket,
    [GUARD_PICKER_VIEW]: once(submitGuardPicker),
    [PLAN_STEP_VIEW]: once(submitStep),
    [STEP_VETO_VIEW]: once(submitVeto),
    [STEP_ANSWER_VIEW]: once(submitAnswer),
  },
  options: {
    [TEAM_CHOICE]: suggestTeams,
    [ATTACK_TEAM]: suggestTeams,
    [GUARD_MONITORS]: suggestMonitors,
    [GUARD_ALERTS]: suggestAlerts,
  },
  shortcuts: {
    [FILE_TICKET_SHORTCUT]: fileTicketFromMessage,
  },
  steps,
  tools: slackbotTools,
  events: {
    app_home_opened: publishHome,
  },
  refreshHome: publishHome,
  refreshHomeAfterViews: [LOGIN_VIEW, TEAM_PICKER_VIEW],
  // Start in the builder's preview, which New attack on Home opens: Home lists the attack at once.
  refreshHomeAfterActions: [ATTACK_START],
  followHomeHalts,
};
