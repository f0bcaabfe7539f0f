import type { KnownBlock } from '@slack/types';
import type { Message } from '../message.ts';
import { loginPromptBlocks } from '../login/login.ts';

/**
 * What Slackbot reads of a message Faultline would have shown in Slack: its blocks as lines of
 * plain text, links as `label (address)`, and the addresses of its link buttons (the attack or
 * the game day on the platform). Buttons that act (Halt, Start) are left out: a tool's answer
 * cannot be clicked.
 */
export function toolText(message: Message): string {
  const lines = (message.blocks ?? []).flatMap(blockLines).map(plain).filter(Boolean);
  return (lines.length ? lines : [plain(message.text)]).join('\n');
}

type Text = { text: string } | undefined;

function blockLines(block: KnownBlock): string[] {
  const texts = (items: readonly unknown[] | undefined) =>
    (items ?? []).flatMap((item) => ((item as Text)?.text !== undefined ? [(item as { text: string }).text] : []));
  switch (block.type) {
    case 'header':
    case 'section': {
      const own = 'text' in block && block.text ? [block.text.text] : [];
      // A field is `*Label*\nvalue`: one line, `Label: value`.
      const fields =
        block.type === 'section' ? texts(block.fields).map((f) => f.replace(/^\*([^*\n]+)\*\n/, '$1: ')) : [];
      const link = block.type === 'section' ? linkOf(block.accessory) : undefined;
      return [...own, ...fields, ...(link ? [link] : [])];
    }
    case 'context':
      return [texts(block.elements).join(' ')];
    case 'actions':
      return block.elements.map(linkOf).filter((line): line is string => line !== undefined);
    default:
      return [];
  }
}

/** A button that opens an address, as `label: address`. */
function linkOf(element: unknown): string | undefined {
  const button = element as { type?: string; url?: string; text?: { text: string } } | undefined;
  if (button?.type !== 'button' || !button.url) return undefined;
  return `${button.text?.text ?? 'Open'}: ${button.url}`;
}

/**
 * Slack's mrkdwn as plain text: dates and links as their words (`label (address)`), entities
 * decoded, emphasis and emoji codes dropped. Mentions of people and channels stay as Slack writes
 * them: Slackbot's answer is read in Slack, which shows them by name.
 */
function plain(mrkdwn: string): string {
  return mrkdwn
    .replace(/<!date\^[^|>]*\|([^>]+)>/g, '$1')
    .replace(/<(https?:[^|>]+)\|([^>]+)>/g, '$2 ($1)')
    .replace(/<(https?:[^>]+)>/g, '$1')
    .replace(/:[a-z0-9_+-]+: ?/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/(^|\s)_([^_\n]+)_(?=$|[\s.,;:])/gm, '$1$2')
    .replace(/[*~`]/g, '')
    .trim();
}

/** The message with, at its foot, where its attack's card or its game day's card is in Slack. */
export function withCardLink(message: Message, what: 'attack' | 'game day', permalink: string): Message {
  const link: KnownBlock = {
    type: 'context',
    elements: [{ type: 'mrkdwn', text: `<${permalink}|The ${what}'s card in Slack>` }],
  };
  return {
    ...message,
    blocks: [...(message.blocks ?? [{ type: 'section', text: { type: 'mrkdwn', text: message.text } }]), link],
  };
}

/** A tool's answer when Slack's request names nobody: nothing was done. */
export const noPersonText =
  'Slack did not say who is asking, so Faultline did nothing. Ask from Slackbot in Slack, where Slack names you.';

/** A tool's answer to someone not logged in: the Log in button is in their DMs; nothing was done. */
export const notLoggedInToolText =
  'You are not logged in to Faultline, so nothing was done. Faultline sent you a direct message with a Log in button: log in there, then ask again.';

/** The direct message with the Log in button that a tool sent a person not logged in. */
export function slackbotLoginPrompt(tool: string): Message {
  const words = `Slackbot asked Faultline to ${tool.replace(/_/g, ' ')} for you, but you are not logged in to the platform. Log in, then ask Slackbot again.`;
  return { text: words, blocks: loginPromptBlocks(words) };
}

export const rateLimitedText = (perMinute: number, seconds: number) =>
  `You asked Faultline more than ${perMinute} times this minute, so this was not done. Ask again in ${seconds} s.`;

/** A tool whose platform call is slow, answered within Slackbot's time: the work goes on. */
export const stillWorkingText =
  'Still working: the platform is slow to answer. What it does shows on the attack card in Slack, or ask again in a minute.';

export const restartingToolText = 'Faultline is restarting and did nothing. Ask again in a minute.';

/** A preview or a saved attack's run never starts from Slackbot: `--yes` is refused there. */
export const noYesText =
  'Leave out --yes: Slackbot never starts an attack. Use request_attack, and press Start on the preview Faultline sends you in Slack.';

/** What request_attack and run_saved_attack answer: the preview is in the person's DMs. */
export const waitingForStartText = (facts: string) =>
  `Waiting for you to press Start in Slack: Faultline sent you the preview in a direct message, with Start and Cancel. Nothing starts until you press Start.\n\n${facts}`;
