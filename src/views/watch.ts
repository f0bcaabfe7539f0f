import type { Watch } from '../attacks/watches.ts';
import { escapeMrkdwn, slackDate } from './blocks.ts';
import type { Message } from './message.ts';

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
