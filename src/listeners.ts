import { runCommand } from './commands/index.ts';
import { builderChanged, cancelPreview, startFromPreview, submitBuilder } from './commands/attack/index.ts';
import { haltAllConfirmed, haltFromButton } from './commands/halt.ts';
import { nextListPage } from './commands/list.ts';
import { forgotPassword, openLogin, submitLogin, submitPasswordReset } from './commands/login.ts';
import { openNote, submitNote } from './commands/note.ts';
import { showFromButton } from './commands/show.ts';
import { submitTeamPicker, suggestTeams } from './commands/team.ts';
import type { Listeners } from './slack/adapter.ts';
import { ATTACK_BUILDER_VIEW, ATTACK_TARGET_KIND, ATTACK_TEAM, ATTACK_TYPE_SELECT } from './views/attackBuilder.ts';
import { ADD_NOTE, ATTACK_DETAILS, HALT_ATTACK } from './views/attackCard.ts';
import { LIST_NEXT_PAGE } from './views/attackList.ts';
import { ATTACK_CANCEL, ATTACK_START } from './views/attackPreview.ts';
import { HALT_ALL_CONFIRMED } from './views/halt.ts';
import { FORGOT_PASSWORD_BUTTON, LOGIN_BUTTON, LOGIN_VIEW, RESET_PASSWORD_VIEW } from './views/login.ts';
import { NOTE_VIEW } from './views/note.ts';
import { TEAM_CHOICE, TEAM_PICKER_VIEW } from './views/team.ts';

/** Every slash command, action id, view callback and options request Faultline answers. */
export const listeners: Listeners = {
  command: runCommand,
  actions: {
    [LOGIN_BUTTON]: openLogin,
    [FORGOT_PASSWORD_BUTTON]: forgotPassword,
    [ATTACK_START]: startFromPreview,
    [ATTACK_CANCEL]: cancelPreview,
    [ATTACK_TYPE_SELECT]: builderChanged,
    [ATTACK_TARGET_KIND]: builderChanged,
    [HALT_ATTACK]: haltFromButton,
    [HALT_ALL_CONFIRMED]: haltAllConfirmed,
    [ADD_NOTE]: openNote,
    [ATTACK_DETAILS]: showFromButton,
    [LIST_NEXT_PAGE]: nextListPage,
  },
  views: {
    [LOGIN_VIEW]: submitLogin,
    [RESET_PASSWORD_VIEW]: submitPasswordReset,
    [TEAM_PICKER_VIEW]: submitTeamPicker,
    [ATTACK_BUILDER_VIEW]: submitBuilder,
    [NOTE_VIEW]: submitNote,
  },
  options: {
    [TEAM_CHOICE]: suggestTeams,
    [ATTACK_TEAM]: suggestTeams,
  },
  shortcuts: {},
  events: {},
};
