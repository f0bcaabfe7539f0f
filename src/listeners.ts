import { runCommand } from './commands/index.ts';
import { forgotPassword, openLogin, submitLogin, submitPasswordReset } from './commands/login.ts';
import { submitTeamPicker, suggestTeams } from './commands/team.ts';
import type { Listeners } from './slack/adapter.ts';
import { FORGOT_PASSWORD_BUTTON, LOGIN_BUTTON, LOGIN_VIEW, RESET_PASSWORD_VIEW } from './views/login.ts';
import { TEAM_CHOICE, TEAM_PICKER_VIEW } from './views/team.ts';

/** Every slash command, action id, view callback and options request Faultline answers. */
export const listeners: Listeners = {
  command: runCommand,
  actions: {
    [LOGIN_BUTTON]: openLogin,
    [FORGOT_PASSWORD_BUTTON]: forgotPassword,
  },
  views: {
    [LOGIN_VIEW]: submitLogin,
    [RESET_PASSWORD_VIEW]: submitPasswordReset,
    [TEAM_PICKER_VIEW]: submitTeamPicker,
  },
  options: {
    [TEAM_CHOICE]: suggestTeams,
  },
  shortcuts: {},
  events: {},
};
