import { randomBytes } from 'node:crypto';

/**
 * Block Kit as the fake reads it. Bodies come from the bot as untyped JSON, so every field is
 * optional here and readers tolerate anything; `limits.ts` decides what Slack would reject.
 */
export interface TextObject {
  type?: string;
  text?: string;
}

export interface OptionObject {
  text?: TextObject;
  value?: string;
  description?: TextObject;
  url?: string;
}

export interface OptionGroup {
  label?: TextObject;
  options?: OptionObject[];
}

export interface BlockElement {
  type?: string;
  action_id?: string;
  text?: TextObject;
  value?: string;
  url?: string;
  style?: string;
  confirm?: { title?: TextObject; text?: TextObject; confirm?: TextObject; deny?: TextObject };
  placeholder?: TextObject;
  options?: OptionObject[];
  option_groups?: OptionGroup[];
  initial_value?: string;
  initial_option?: OptionObject;
  initial_options?: OptionObject[];
  initial_user?: string;
  initial_users?: string[];
  initial_conversation?: string;
  initial_channel?: string;
  initial_date?: string;
  min_query_length?: number;
  elements?: unknown[];
  [key: string]: unknown;
}

export interface Block {
  type?: string;
  block_id?: string;
  text?: TextObject;
  fields?: TextObject[];
  accessory?: BlockElement;
  elements?: BlockElement[];
  element?: BlockElement;
  label?: TextObject;
  hint?: TextObject;
  optional?: boolean;
  dispatch_action?: boolean;
  [key: string]: unknown;
}

/** The value Slack keeps for one stateful element, as sent in `state.values`. */
export type StateValue = { type: string } & Record<string, unknown>;
export type StateValues = Record<string, Record<string, StateValue>>;

/** One interactive element with the block that holds it and the words a person sees next to it. */
export interface PlacedElement {
  block: Block;
  blockId: string;
  element: BlockElement;
  actionId: string;
  /** The input block's label, or the section's text for an accessory. */
  label?: string;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const SELECT_TYPES = new Set([
  'static_select',
  'external_select',
  'users_select',
  'conversations_select',
  'channels_select',
  'multi_static_select',
  'multi_external_select',
  'multi_users_select',
  'multi_conversations_select',
  'multi_channels_select',
]);
const CHOICE_TYPES = new Set(['radio_buttons', 'checkboxes', 'overflow']);
const TEXT_INPUT_TYPES = new Set([
  'plain_text_input',
  'number_input',
  'email_text_input',
  'url_text_input',
  'datepicker',
  'timepicker',
]);

export function isSelect(element: BlockElement): boolean {
  return SELECT_TYPES.has(element.type ?? '');
}

export function isChoice(element: BlockElement): boolean {
  return CHOICE_TYPES.has(element.type ?? '');
}

export function isTextInput(element: BlockElement): boolean {
  return TEXT_INPUT_TYPES.has(element.type ?? '');
}

export function isExternalSelect(element: BlockElement): boolean {
  return element.type === 'external_select' || element.type === 'multi_external_select';
}

/** Collapses whitespace so that drivers match text the way a person reads it. */
export function normalizeText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function plainText(object: TextObject | undefined): string {
  return typeof object?.text === 'string' ? object.text : '';
}

/** Every interactive element, in reading order. */
export function placedElements(blocks: Block[]): PlacedElement[] {
  const placed: PlacedElement[] = [];
  for (const block of blocks) {
    const blockId = block.block_id ?? '';
    const add = (element: BlockElement | undefined, label?: string) => {
      if (element === undefined || typeof element !== 'object' || element.action_id === undefined) return;
      placed.push({ block, blockId, element, actionId: element.action_id, ...(label ? { label } : {}) });
    };
    if (block.type === 'input') add(block.element, normalizeText(plainText(block.label)));
    if (block.type === 'section') add(block.accessory, normalizeText(plainText(block.text)));
    if (block.type === 'actions' && Array.isArray(block.elements)) block.elements.forEach((element) => add(element));
  }
  return placed;
}

/** The options a static element offers, flattened out of option groups. */
export function staticOptions(element: BlockElement): OptionObject[] {
  if (Array.isArray(element.options)) return element.options;
  if (Array.isArray(element.option_groups)) return element.option_groups.flatMap((group) => group.options ?? []);
  return [];
}

/** All text a person sees on a surface, one line per piece, in reading order. */
export function visibleText(blocks: Block[]): string {
  const lines: string[] = [];
  const push = (text: string) => {
    if (text.trim() !== '') lines.push(text);
  };
  const element = (item: BlockElement | undefined) => {
    if (item === undefined || typeof item !== 'object') return;
    push(plainText(item.text));
    if (item.type === 'image' && typeof item['alt_text'] === 'string') push(item['alt_text']);
  };
  for (const block of blocks) {
    switch (block.type) {
      case 'section':
        push(plainText(block.text));
        (block.fields ?? []).forEach((field) => push(plainText(field)));
        element(block.accessory);
        break;
      case 'header':
        push(plainText(block.text));
        break;
      case 'context':
        for (const item of block.elements ?? []) {
          if (item.type !== 'image') push(plainText(item as TextObject));
        }
        break;
      case 'actions':
        (block.elements ?? []).forEach(element);
        break;
      case 'input':
        push(plainText(block.label));
        push(plainText(block.hint));
        break;
      case 'rich_text':
        push(richText(block.elements ?? []));
        break;
      case 'markdown':
        if (typeof block['text'] === 'string') push(block['text']);
        break;
      default:
        break;
    }
  }
  return lines.join('\n');
}

function richText(elements: unknown[]): string {
  return elements
    .map((item) => {
      if (item === null || typeof item !== 'object') return '';
      const node = item as Record<string, unknown>;
      if (Array.isArray(node['elements'])) return richText(node['elements']);
      if (typeof node['text'] === 'string') return node['text'];
      if (node['type'] === 'link' && typeof node['url'] === 'string') return node['url'];
      if (node['type'] === 'user' && typeof node['user_id'] === 'string') return `<@${node['user_id']}>`;
      if (node['type'] === 'channel' && typeof node['channel_id'] === 'string') return `<#${node['channel_id']}>`;
      return '';
    })
    .join('');
}

function shortId(): string {
  return randomBytes(3).toString('base64url');
}

/**
 * Slack stores blocks with a `block_id` on every block and an `action_id` on every interactive
 * element, generating the ones the app left out; payloads then carry those ids.
 */
export function withSlackIds(blocks: Block[]): Block[] {
  const withAction = (element: BlockElement | undefined): BlockElement | undefined =>
    element !== undefined && typeof element === 'object' && element.type !== undefined && isInteractive(element)
      ? { ...element, action_id: element.action_id ?? shortId() }
      : element;
  return blocks.map((block) => {
    const copy: Block = { ...block, block_id: block.block_id ?? shortId() };
    if (block.accessory !== undefined) copy.accessory = withAction(block.accessory);
    if (block.element !== undefined) copy.element = withAction(block.element);
    if (block.type === 'actions' && Array.isArray(block.elements)) {
      copy.elements = block.elements.map((element) => withAction(element) ?? element);
    }
    return copy;
  });
}

function isInteractive(element: BlockElement): boolean {
  return (
    element.type === 'button' ||
    isSelect(element) ||
    isChoice(element) ||
    isTextInput(element) ||
    element.type === 'datetimepicker' ||
    element.type === 'rich_text_input' ||
    element.type === 'file_input'
  );
}

/** Where a surface was opened: the conversation a person was viewing, when there was one. */
export interface SurfaceContext {
  conversation?: string;
}

/**
 * The state Slack starts a stateful element with: its initial value, or an empty one. A
 * conversation select with `default_to_current_conversation` and no initial value starts on the
 * conversation the modal was opened from.
 */
export function initialState(element: BlockElement, context: SurfaceContext = {}): StateValue | undefined {
  const type = element.type ?? '';
  if (isTextInput(element)) {
    if (type === 'datepicker') return { type, selected_date: element.initial_date ?? null };
    if (type === 'timepicker') return { type, selected_time: (element['initial_time'] as string | undefined) ?? null };
    return { type, value: element.initial_value ?? null };
  }
  switch (type) {
    case 'static_select':
    case 'external_select':
    case 'radio_buttons':
      return { type, selected_option: element.initial_option ?? null };
    case 'multi_static_select':
    case 'multi_external_select':
    case 'checkboxes':
      return { type, selected_options: element.initial_options ?? [] };
    case 'users_select':
      return { type, selected_user: element.initial_user ?? null };
    case 'multi_users_select':
      return { type, selected_users: element.initial_users ?? [] };
    case 'conversations_select':
      return {
        type,
        selected_conversation: element.initial_conversation ?? currentConversation(element, context) ?? null,
      };
    case 'multi_conversations_select': {
      const current = currentConversation(element, context);
      return {
        type,
        selected_conversations:
          (element['initial_conversations'] as string[] | undefined) ?? (current !== undefined ? [current] : []),
      };
    }
    case 'channels_select':
      return { type, selected_channel: element.initial_channel ?? null };
    default:
      return undefined;
  }
}

function currentConversation(element: BlockElement, context: SurfaceContext): string | undefined {
  return element['default_to_current_conversation'] === true ? context.conversation : undefined;
}

/**
 * State for a (new version of a) surface. Values a person already entered survive when the block
 * and action ids are unchanged, as Slack preserves input across `views.update`.
 */
export function stateFor(blocks: Block[], previous: StateValues = {}, context: SurfaceContext = {}): StateValues {
  const values: StateValues = {};
  for (const { blockId, actionId, element } of placedElements(blocks)) {
    const kept = previous[blockId]?.[actionId];
    const state = kept !== undefined && kept.type === element.type ? kept : initialState(element, context);
    if (state === undefined) continue;
    (values[blockId] ??= {})[actionId] = state;
  }
  return values;
}
