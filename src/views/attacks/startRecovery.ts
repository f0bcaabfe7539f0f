import { escapeMrkdwn } from '../blocks.ts';
import type { Message } from '../message.ts';

/** What a start finished after a restart was: "*cpu* attack in team *Platform*". */
export interface StartWhat {
  type: string;
  teamName: string;
  channel: string;
}

const named = (what: StartWhat) =>
  `*${escapeMrkdwn(what.type)}* attack in team *${escapeMrkdwn(what.teamName)}* (<#${what.channel}>)`;

/** The start went through; the bot restarted before it could say so. */
export function startedAfterRestartMessage(what: StartWhat, guid: string, carded: boolean, command: string): Message {
  const card = carded
    ? 'Its card in the channel shows it live, with a Halt button.'
    : `Its card could not be posted in the channel; \`${command} halt ${guid}\` halts it.`;
  return {
    text: `:rocket: Your ${named(what)} started: \`${guid}\`. Faultline restarted before it could tell you. ${card}`,
  };
}

/** The bot stopped before it sent the start to the platform. */
export function notStartedAfterRestartMessage(what: StartWhat): Message {
  return {
    text: `:warning: Faultline restarted before it sent your ${named(what)} to the platform. Nothing was started; run the command again.`,
  };
}

/**
 * The bot stopped while the platform was creating the attack, and what the platform lists does
 * not tell which attack (if any) it was: nothing is started again, the person decides.
 */
export function unconfirmedAfterRestartMessage(what: StartWhat, candidates: string[], command: string): Message {
  const maybe = candidates.length
    ? ` It may be one of ${candidates.map((guid) => `\`${guid}\``).join(', ')}.`
    : ' The platform lists no such attack, so it most likely did not start.';
  return {
    text: `:warning: Faultline restarted while the platform was starting your ${named(what)}, and could not tell whether it started.${maybe} Nothing was started again: check \`${command} list\` before you try again.`,
  };
}

/** As above, but the platform could not be asked: the starter's session in the team is gone. */
export function uncheckedAfterRestartMessage(what: StartWhat, command: string): Message {
  return {
    text: `:warning: Faultline restarted while the platform was starting your ${named(what)}, and could not check whether it started: you are no longer logged in to that team. Nothing was started again: log in (\`${command} login\`) and check \`${command} list\` before you try again.`,
  };
}
