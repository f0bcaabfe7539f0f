import { isPathId } from '../client/index.ts';
import type {
  ActionsBlock,
  Button,
  ConfirmationDialog,
  ContextBlock,
  HeaderBlock,
  InputBlock,
  KnownBlock,
  ModalView,
  PlainTextElement,
  PlainTextInput,
  SectionBlock,
} from '@slack/types';

/** Block Kit building blocks shared by every view. Limits here are Slack's. */
export const limits = {
  messageBlocks: 50,
  viewBlocks: 100,
  sectionText: 3_000,
  modalTitle: 24,
  buttonText: 75,
  optionText: 75,
  selectOptions: 100,
  plainInput: 3_000,
} as const;

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * A count and its noun in agreement: `plural(1, 'attack')` is "1 attack", `plural(2, 'attack')`
 * "2 attacks". An irregular plural is given: `plural(3, 'was', 'were')` is "3 were".
 */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${agree(count, singular, pluralForm)}`;
}

/** The word alone, in agreement with a count said elsewhere: `agree(1, 'does', 'do')` is "does". */
export function agree(count: number, singular: string, pluralForm = `${singular}s`): string {
  return count === 1 ? singular : pluralForm;
}

/** Escapes the three characters Slack's mrkdwn treats as control characters. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Whether an address from outside Faultline (a tracker ticket's `url`) may go into a mrkdwn link:
 * http(s) only, with nothing that could close the link, add a label or open another (`<`, `>`,
 * `|`, spaces, control characters).
 */
export function isLinkableUrl(url: string | undefined): url is string {
  if (url === undefined || /[<>|\s\u0000-\u001f\u007f]/.test(url)) return false;
  const parsed = URL.parse(url);
  return parsed !== null && (parsed.protocol === 'https:' || parsed.protocol === 'http:');
}

/** `label` linked to `url` when the address is safe to link, else the label alone in bold; the label is escaped. */
export function externalLink(url: string | undefined, label: string): string {
  return isLinkableUrl(url) ? `<${url}|${escapeMrkdwn(label)}>` : `*${escapeMrkdwn(label)}*`;
}

/** Text from elsewhere (an attack id) as code: escaped, and unable to close the code span. */
export function code(text: string): string {
  return `\`${escapeMrkdwn(text).replace(/`/g, "'")}\``;
}

/** The platform web UI's page of an attack, when the id can stand in its path. */
export function platformAttackUrl(appUrl: string | undefined, guid: string): string | undefined {
  return appUrl && isPathId(guid) ? `${appUrl}/attacks/${encodeURIComponent(guid)}` : undefined;
}

export function plain(text: string, max: number = limits.sectionText): PlainTextElement {
  return { type: 'plain_text', text: truncate(text, max), emoji: true };
}

export function header(text: string): HeaderBlock {
  return { type: 'header', text: plain(text, 150) };
}

export function section(markdown: string, extra: Partial<SectionBlock> = {}): SectionBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(markdown, limits.sectionText) }, ...extra };
}

export function fields(pairs: [string, string][]): SectionBlock {
  return {
    type: 'section',
    fields: pairs
      .slice(0, 10)
      .map(([name, value]) => ({ type: 'mrkdwn', text: truncate(`*${name}*\n${value}`, 2_000) })),
  };
}

export function context(markdown: string): ContextBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: truncate(markdown, limits.sectionText) }] };
}

export function button(
  text: string,
  actionId: string,
  options: { value?: string; style?: 'primary' | 'danger'; url?: string; confirm?: Button['confirm'] } = {},
): Button {
  const element: Button = { type: 'button', text: plain(text, limits.buttonText), action_id: actionId };
  if (options.value !== undefined) element.value = options.value;
  if (options.style) element.style = options.style;
  if (options.url) element.url = options.url;
  if (options.confirm) element.confirm = options.confirm;
  return element;
}

/** A text input that shows `value` again when there is one. */
export function textInput(
  actionId: string,
  value: string | undefined,
  options: { placeholder?: string; multiline?: boolean; maxLength?: number } = {},
): PlainTextInput {
  return {
    type: 'plain_text_input',
    action_id: actionId,
    ...(options.placeholder ? { placeholder: plain(options.placeholder, 150) } : {}),
    ...(options.multiline ? { multiline: true } : {}),
    ...(options.maxLength ? { max_length: options.maxLength } : {}),
    ...(value ? { initial_value: value } : {}),
  };
}

export function actions(blockId: string, elements: ActionsBlock['elements']): ActionsBlock {
  return { type: 'actions', block_id: blockId, elements };
}

export function input(
  blockId: string,
  label: string,
  element: InputBlock['element'],
  options: { optional?: boolean; hint?: string; dispatch?: boolean } = {},
): InputBlock {
  const block: InputBlock = { type: 'input', block_id: blockId, label: plain(label, 2_000), element };
  if (options.optional) block.optional = true;
  if (options.hint) block.hint = plain(options.hint, 2_000);
  if (options.dispatch) block.dispatch_action = true;
  return block;
}

export function modal(
  callbackId: string,
  title: string,
  blocks: KnownBlock[],
  options: {
    submit?: string;
    close?: string;
    privateMetadata?: string;
    notifyOnClose?: boolean;
    externalId?: string;
  } = {},
): ModalView {
  const view: ModalView = {
    type: 'modal',
    callback_id: callbackId,
    title: plain(title, limits.modalTitle),
    close: plain(options.close ?? 'Close', 24),
    blocks: blocks.slice(0, limits.viewBlocks),
  };
  if (options.submit) view.submit = plain(options.submit, 24);
  if (options.privateMetadata !== undefined) view.private_metadata = options.privateMetadata;
  if (options.notifyOnClose) view.notify_on_close = true;
  if (options.externalId) view.external_id = options.externalId;
  return view;
}

/** Channels as Slack links, in a list: `<#C1>, <#C2>`. */
export function channelLinks(channels: readonly string[]): string {
  return channels.map((c) => `<#${c}>`).join(', ');
}

/** A Slack date token: rendered in the reader's time zone, with a UTC fallback. */
export function slackDate(date: Date, format = '{date_short_pretty} at {time}'): string {
  const seconds = Math.floor(date.getTime() / 1000);
  return `<!date^${seconds}^${format}|${date.toISOString().replace('T', ' ').slice(0, 16)} UTC>`;
}

/**
 * The object a button value (or a modal's private_metadata) holds, or undefined when it holds
 * none: the value comes from the person's Slack client, so its fields are checked by the caller.
 */
export function buttonObject(value: string | undefined): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(value ?? '');
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A field's value shown again only when the input takes it: a number, whole unless `decimals`. */
export const isNumber = (text: string | undefined, decimals = true): text is string =>
  text !== undefined && (decimals ? /^-?\d+(\.\d+)?$/ : /^-?\d+$/).test(text);

/** Slack's confirm dialog: a title, what happens (mrkdwn), the confirm and deny words. */
export function confirmDialog(
  title: string,
  text: string,
  confirm: string,
  options: { deny?: string; danger?: boolean } = {},
): ConfirmationDialog {
  return {
    title: { type: 'plain_text', text: title },
    text: { type: 'mrkdwn', text },
    confirm: { type: 'plain_text', text: confirm },
    deny: { type: 'plain_text', text: options.deny ?? 'Cancel' },
    ...(options.danger ? { style: 'danger' as const } : {}),
  };
}
