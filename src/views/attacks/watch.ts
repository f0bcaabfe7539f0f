import type { Watch } from '../../attacks/watches.ts';
import { escapeMrkdwn, slackDate } from '../blocks.ts';
import type { Message } from '../message.ts';

/** "Payments, set by @alice since 14:02", as status and App Home list a watch. */
export function watchLine(watch: Watch, options: { channel?: boolean } = {}): string {
  const since = Number.isNaN(Date.parse(watch.since))
    ? ''
    : ` since ${slackDate(new Date(watch.since), '{date_short_pretty} at {time}')}`;
  const where = options.channel ? ` in <#${watch.channel}>` : '';
  const state = watch.pausedAt ? ` · :pause_button: *paused*: <@${watch.by.userId}>'s session ended` : '';
  return `:eyes: *${escapeMrkdwn(watch.teamName)}*${where}, set by <@${watch.by.userId}>${since}${state}`;
}

/** Said in the channel when a watch is set, or renewed. */
export function watchSetText(watch: Watch, renewed: boolean): string {
  const what = `every attack of team *${escapeMrkdwn(watch.teamName)}*, wherever it starts (web UI, API, scenarios, other channels), gets a live card here`;
  return renewed
    ? `:eyes: <@${watch.by.userId}> renewed this channel's watch of team *${escapeMrkdwn(watch.teamName)}*: ${what} again.`
    : `:eyes: <@${watch.by.userId}> set this channel to watch team *${escapeMrkdwn(watch.teamName)}*: ${what}.`;
}

/** Said once in the channel when the session that reads for its watch ends. */
export function watchPausedMessage(watch: Watch, command: string): Message {
  const text =
    `:pause_button: This channel's watch of team *${escapeMrkdwn(watch.teamName)}* is paused: <@${watch.by.userId}>'s platform session ended, ` +
    `so Faultline cannot read the team's attacks for it. Cards already here keep updating while someone can read them. ` +
    `Anyone with access to the team can renew the watch with \`${escapeMrkdwn(`${command} watch ${watch.teamName}`)}\`.`;
  return { text };
}

/** `watch` of a team the channel already watches with the same person's session. */
export const alreadyWatchingText = (watch: Pick<Watch, 'teamName'>, command: string) =>
  `This channel already watches team *${escapeMrkdwn(watch.teamName)}* with your session. \`${escapeMrkdwn(`${command} unwatch ${watch.teamName}`)}\` stops it.`;

/** The answer to whoever set a watch: how soon cards come, and how it stops. */
export const watchingText = (watch: Pick<Watch, 'teamName'>, pollSeconds: number, command: string) =>
  `Done: this channel watches team *${escapeMrkdwn(watch.teamName)}*. Attacks that start there get a card here within ${pollSeconds} seconds; they are read with your platform session. \`${escapeMrkdwn(`${command} unwatch ${watch.teamName}`)}\` stops it.`;

/** `unwatch` with nothing to stop: the team typed, or none at all. */
export const notWatchingText = (typed: string | undefined) =>
  typed ? `This channel does not watch *${escapeMrkdwn(typed)}*.` : 'This channel watches no team.';

/** Told in the channel when someone stops its watch. */
export const watchStoppedText = (userId: string, watch: Pick<Watch, 'teamName'>) =>
  `:wave: <@${userId}> stopped this channel's watch of team *${escapeMrkdwn(watch.teamName)}*. Cards already here keep updating.`;

/** The answer to whoever stopped a watch. */
export const unwatchedText = (watch: Pick<Watch, 'teamName'>) =>
  `Done: this channel no longer watches team *${escapeMrkdwn(watch.teamName)}*.`;
