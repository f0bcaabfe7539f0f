import {
  isExternalSelect,
  isChoice,
  isSelect,
  normalizeText,
  placedElements,
  plainText,
  staticOptions,
  visibleText,
  type Block,
  type BlockElement,
  type OptionObject,
  type PlacedElement,
  type StateValue,
  type StateValues,
} from './block-kit.ts';
import type { BotLink, BotResponse } from './bot-link.ts';
import { optionsResponseViolations, slackMessages } from './limits.ts';
import {
  channelName,
  messageJson,
  userJson,
  VERIFICATION_TOKEN,
  viewJson,
  workspaceFields,
  type Profile,
} from './payloads.ts';
import type { MessageRecord, ViewRecord, Workspace } from './workspace.ts';

export interface ButtonInfo {
  text: string;
  actionId: string;
  blockId: string;
  value?: string;
  url?: string;
  style?: string;
}

/** Which button `click` presses when several share its text, and whether the person confirms it. */
export interface ClickOptions {
  /** Needed for a button with a `confirm` dialog: the person confirms it. */
  confirm?: boolean;
  /** Only the button that carries this value, such as the Halt button of one attack among many. */
  value?: string;
  /** Which of the matching buttons, counting from 0 in reading order; default 0, the first. */
  index?: number;
  /** Sends this value instead of the button's own, as a tampered client could: for tests of forged clicks. */
  sendValue?: string;
}

export interface OptionInfo {
  text: string;
  value: string;
}

/** Something a person looks at and acts on: a message, a modal or the App Home tab. */
export interface Surface {
  readonly blocks: Block[];
  /** All visible text, one line per piece, in reading order. */
  text(): string;
  buttons(): ButtonInfo[];
  /**
   * Clicks a button by its text: the first with that text, or the one `value` and `index` pick
   * among several. A button with a `confirm` dialog needs `{ confirm: true }`.
   */
  click(buttonText: string, options?: ClickOptions): Promise<BotResponse>;
  /**
   * Picks an option in a select, radio group, checkbox group or overflow menu found by its label
   * (input label or section text) or placeholder. Sends `block_actions` unless the element sits in
   * an input block without `dispatch_action`, where Slack only keeps the choice (then undefined).
   * External selects are searched with the option text first; user and conversation selects take an id.
   */
  select(labelOrPlaceholder: string, optionText: string): Promise<BotResponse | undefined>;
}

export interface Message extends Surface {
  readonly ts: string;
  readonly channel: string;
  readonly threadTs: string | undefined;
  readonly ephemeral: boolean;
  /** The message's `text` argument, the fallback for notifications. */
  readonly fallbackText: string;
  readonly deleted: boolean;
  /** The message metadata the app attached, as other apps read it. */
  readonly metadata: { event_type: string; event_payload: Record<string, unknown> } | undefined;
}

export interface ChannelView {
  /** Top-level messages, oldest first, as they are now (after chat.update, without deleted ones). */
  messages(): Message[];
  /** Replies in the thread under `ts`, oldest first. */
  thread(ts: string): Message[];
}

/** Everything a driver needs to act as one person. */
export interface Actor {
  workspace: Workspace;
  bot: BotLink;
  profile: Profile;
  /** Options last offered by external selects, by view or message and element, for `choose`. */
  suggestions: Map<string, OptionObject[]>;
}

export function quoted(items: string[]): string {
  return items.length === 0 ? 'none' : items.map((item) => `"${item}"`).join(', ');
}

export function interactionFields(actor: Actor): Record<string, unknown> {
  return {
    user: userJson(actor.profile),
    api_app_id: actor.workspace.identity.appId,
    token: VERIFICATION_TOKEN,
    ...workspaceFields(actor.profile),
  };
}

/** What a person's choice leaves in `state.values`, given what was there before. */
function chosenState(element: BlockElement, option: OptionObject, previous: StateValue | undefined): StateValue {
  const type = element.type ?? '';
  const value = option.value ?? '';
  const options = (Array.isArray(previous?.['selected_options']) ? previous['selected_options'] : []) as OptionObject[];
  const alreadyChosen = options.some((item) => item.value === value);
  const ids = (key: string): string[] => [...new Set([...((previous?.[key] as string[] | undefined) ?? []), value])];
  switch (type) {
    case 'checkboxes':
      return {
        type,
        selected_options: alreadyChosen ? options.filter((item) => item.value !== value) : [...options, option],
      };
    case 'multi_static_select':
    case 'multi_external_select':
      return { type, selected_options: alreadyChosen ? options : [...options, option] };
    case 'users_select':
      return { type, selected_user: value };
    case 'multi_users_select':
      return { type, selected_users: ids('selected_users') };
    case 'conversations_select':
      return { type, selected_conversation: value };
    case 'multi_conversations_select':
      return { type, selected_conversations: ids('selected_conversations') };
    case 'channels_select':
      return { type, selected_channel: value };
    case 'multi_channels_select':
      return { type, selected_channels: ids('selected_channels') };
    default:
      return { type, selected_option: option };
  }
}

function takesIds(element: BlockElement): boolean {
  return /(users|conversations|channels)_select$/.test(element.type ?? '');
}

export abstract class SurfaceDriver implements Surface {
  protected readonly workspace: Workspace;
  private readonly actor: Actor | undefined;

  constructor(workspace: Workspace, actor: Actor | undefined) {
    this.workspace = workspace;
    this.actor = actor;
  }

  abstract get blocks(): Block[];
  protected abstract stateValues(): StateValues;
  protected abstract isLive(): boolean;
  protected abstract describe(): string;
  /** Key under which options offered by external selects on this surface are remembered. */
  protected abstract surfaceKey(): string;
  /** The conversation a modal opened from this surface's actions defaults to, if any. */
  protected abstract conversation(): string | undefined;
  /** Container fields of `block_actions` (with a response_url where Slack gives one) and `block_suggestion`. */
  protected abstract containerFields(actor: Actor, forAction: boolean): Record<string, unknown>;

  text(): string {
    return visibleText(this.blocks);
  }

  buttons(): ButtonInfo[] {
    return placedElements(this.blocks)
      .filter(({ element }) => element.type === 'button')
      .map(({ element, actionId, blockId }) => ({
        text: normalizeText(plainText(element.text)),
        actionId,
        blockId,
        ...(element.value !== undefined ? { value: element.value } : {}),
        ...(element.url !== undefined ? { url: element.url } : {}),
        ...(element.style !== undefined ? { style: element.style } : {}),
      }));
  }

  async click(buttonText: string, options: ClickOptions = {}): Promise<BotResponse> {
    const actor = this.actingPerson();
    const placed = this.findButton(buttonText, options);
    const { confirm } = placed.element;
    if (confirm !== undefined && options.confirm !== true) {
      throw new Error(
        `"${buttonText}" opens a confirmation dialog first ("${plainText(confirm.title)}": ${plainText(confirm.text)}); click it with { confirm: true }`,
      );
    }
    const { element } = placed;
    const value = options.sendValue ?? element.value;
    return this.dispatch(actor, placed, {
      type: 'button',
      text: element.text,
      ...(value !== undefined ? { value } : {}),
      ...(element.style !== undefined ? { style: element.style } : {}),
      ...(element.url !== undefined ? { url: element.url } : {}),
    });
  }

  private findButton(buttonText: string, { value, index = 0 }: ClickOptions): PlacedElement {
    const wanted = normalizeText(buttonText);
    const named = placedElements(this.blocks).filter(
      ({ element }) => element.type === 'button' && normalizeText(plainText(element.text)) === wanted,
    );
    if (named.length === 0) {
      throw new Error(
        `No button "${buttonText}" on ${this.describe()}; buttons: ${quoted(this.buttons().map((button) => button.text))}`,
      );
    }
    const matching = value === undefined ? named : named.filter(({ element }) => element.value === value);
    const placed = matching[index];
    if (placed !== undefined) return placed;
    const withValue = value === undefined ? '' : ` with value "${value}"`;
    if (matching.length === 0) {
      const values = named.flatMap(({ element }) => element.value ?? []);
      throw new Error(
        `No button "${buttonText}"${withValue} on ${this.describe()}; the "${buttonText}" buttons carry values: ${quoted(values)}`,
      );
    }
    throw new Error(
      `No button "${buttonText}"${withValue} at index ${index} on ${this.describe()}; only ${matching.length} match, counted from index 0`,
    );
  }

  async select(labelOrPlaceholder: string, optionText: string): Promise<BotResponse | undefined> {
    const actor = this.actingPerson();
    const placed = this.findChoice(
      labelOrPlaceholder,
      (placed) => isSelect(placed.element) || isChoice(placed.element),
    );
    if (isExternalSelect(placed.element)) await this.suggest(actor, placed, optionText);
    const state = this.keepChoice(placed, this.option(placed, optionText));
    if (placed.block.type === 'input' && placed.block.dispatch_action !== true) return undefined;
    return this.dispatch(actor, placed, state);
  }

  protected actingPerson(): Actor {
    if (this.actor === undefined) {
      throw new Error(
        `Nobody acts on ${this.describe()} read from the workspace; read it through a person, e.g. person.channel(id)`,
      );
    }
    if (!this.isLive()) throw new Error(`${this.describe()} is no longer shown`);
    return this.actor;
  }

  protected findChoice(labelOrPlaceholder: string, accept: (placed: PlacedElement) => boolean): PlacedElement {
    const wanted = normalizeText(labelOrPlaceholder);
    const candidates = placedElements(this.blocks).filter(accept);
    const found = candidates.find(
      (placed) => placed.label === wanted || normalizeText(plainText(placed.element.placeholder)) === wanted,
    );
    if (found === undefined) {
      const names = candidates.map(
        (placed) => placed.label ?? (normalizeText(plainText(placed.element.placeholder)) || placed.actionId),
      );
      throw new Error(`No select "${labelOrPlaceholder}" on ${this.describe()}; selects: ${quoted(names)}`);
    }
    return found;
  }

  /** The option a person picks by its text; for user and conversation selects the text is the id. */
  protected option(placed: PlacedElement, optionText: string): OptionObject {
    if (takesIds(placed.element)) return { text: { type: 'plain_text', text: optionText }, value: optionText };
    const offered = isExternalSelect(placed.element)
      ? (this.actor?.suggestions.get(this.suggestionKey(placed)) ?? [])
      : staticOptions(placed.element);
    const wanted = normalizeText(optionText);
    const option = offered.find((candidate) => normalizeText(plainText(candidate.text)) === wanted);
    if (option === undefined) {
      const where = placed.label ?? placed.actionId;
      const hint =
        isExternalSelect(placed.element) && offered.length === 0
          ? ' (nothing offered: search the external select first)'
          : '';
      throw new Error(
        `No option "${optionText}" in "${where}"${hint}; options: ${quoted(offered.map((item) => plainText(item.text)))}`,
      );
    }
    return option;
  }

  protected keepChoice(placed: PlacedElement, option: OptionObject): StateValue {
    const values = this.stateValues();
    const state = chosenState(placed.element, option, values[placed.blockId]?.[placed.actionId]);
    // Overflow menus are stateless: Slack reports the pick in the action only.
    if (placed.element.type !== 'overflow') (values[placed.blockId] ??= {})[placed.actionId] = state;
    this.workspace.changed();
    return state;
  }

  protected async dispatch(actor: Actor, placed: PlacedElement, fields: Record<string, unknown>): Promise<BotResponse> {
    const payload = {
      type: 'block_actions',
      ...interactionFields(actor),
      trigger_id: this.workspace.issueTrigger(actor.profile.id, this.conversation()),
      ...this.containerFields(actor, true),
      actions: [{ ...fields, action_id: placed.actionId, block_id: placed.blockId, action_ts: this.workspace.newTs() }],
    };
    return actor.bot.interaction(payload);
  }

  private suggestionKey(placed: PlacedElement): string {
    return `${this.surfaceKey()}/${placed.blockId}/${placed.actionId}`;
  }

  /** Posts `block_suggestion` as a person typing `query`; Slack waits for min_query_length characters. */
  protected async suggest(actor: Actor, placed: PlacedElement, query: string): Promise<OptionInfo[]> {
    const key = this.suggestionKey(placed);
    actor.suggestions.delete(key);
    if (query.length < (placed.element.min_query_length ?? 3)) return [];
    const payload = {
      type: 'block_suggestion',
      ...interactionFields(actor),
      ...this.containerFields(actor, false),
      action_id: placed.actionId,
      block_id: placed.blockId,
      value: query,
    };
    const response = await actor.bot.interaction(payload);
    const args = { action_id: placed.actionId, block_id: placed.blockId, value: query, status: response.status };
    const violations =
      response.status === 200
        ? optionsResponseViolations(response.body)
        : [{ pointer: '/', message: `the request failed with HTTP ${response.status}` }];
    if (violations.length > 0) {
      this.workspace.record('options_response', args, {
        ok: false,
        error: 'invalid_options',
        response_metadata: { messages: slackMessages(violations) },
      });
      return [];
    }
    this.workspace.record('options_response', args, { ok: true });
    const body = response.body as { options?: OptionObject[]; option_groups?: { options?: OptionObject[] }[] };
    const options = body.options ?? (body.option_groups ?? []).flatMap((group) => group.options ?? []);
    actor.suggestions.set(key, options);
    return options.map((option) => ({ text: plainText(option.text), value: option.value ?? '' }));
  }
}

class MessageDriver extends SurfaceDriver implements Message {
  private readonly record: MessageRecord;

  constructor(workspace: Workspace, actor: Actor | undefined, record: MessageRecord) {
    super(workspace, actor);
    this.record = record;
  }

  get blocks(): Block[] {
    return this.record.blocks;
  }

  get ts(): string {
    return this.record.ts;
  }

  get channel(): string {
    return this.record.channel;
  }

  get threadTs(): string | undefined {
    return this.record.threadTs;
  }

  get ephemeral(): boolean {
    return this.record.ephemeral;
  }

  get fallbackText(): string {
    return this.record.text;
  }

  get deleted(): boolean {
    return this.record.deleted;
  }

  get metadata(): MessageRecord['metadata'] {
    return this.record.metadata;
  }

  override text(): string {
    return this.record.blocks.length > 0 ? visibleText(this.record.blocks) : this.record.text;
  }

  protected stateValues(): StateValues {
    return this.record.values;
  }

  protected isLive(): boolean {
    return !this.record.deleted;
  }

  protected describe(): string {
    return `the ${this.record.ephemeral ? 'ephemeral ' : ''}message ${this.record.ts} in ${this.record.channel}`;
  }

  protected surfaceKey(): string {
    return `${this.record.channel}/${this.record.ts}`;
  }

  protected conversation(): string | undefined {
    return this.record.channel;
  }

  protected containerFields(actor: Actor, forAction: boolean): Record<string, unknown> {
    const { record } = this;
    return {
      container: {
        type: 'message',
        message_ts: record.ts,
        channel_id: record.channel,
        is_ephemeral: record.ephemeral,
        ...(record.threadTs !== undefined ? { thread_ts: record.threadTs } : {}),
      },
      channel: { id: record.channel, name: channelName(record.channel) },
      // Slack does not send back the content of ephemeral messages.
      ...(record.ephemeral ? {} : { message: messageJson(this.workspace.identity, record) }),
      state: { values: record.values },
      ...(forAction
        ? {
            response_url: this.workspace.issueResponseUrl('actions', {
              userId: actor.profile.id,
              channel: record.channel,
              original: record,
            }).url,
          }
        : {}),
    };
  }
}

export class ViewDriver extends SurfaceDriver {
  protected readonly record: ViewRecord;

  constructor(workspace: Workspace, actor: Actor | undefined, record: ViewRecord) {
    super(workspace, actor);
    this.record = record;
  }

  get blocks(): Block[] {
    return this.record.blocks;
  }

  protected stateValues(): StateValues {
    return this.record.values;
  }

  protected isLive(): boolean {
    return this.record.open;
  }

  protected describe(): string {
    const title = plainText(this.record.definition['title'] as { text?: string } | undefined);
    return this.record.kind === 'home' ? 'the App Home tab' : `the modal "${title}"`;
  }

  protected surfaceKey(): string {
    return this.record.id;
  }

  protected conversation(): string | undefined {
    return this.record.conversation;
  }

  protected containerFields(): Record<string, unknown> {
    return {
      container: { type: 'view', view_id: this.record.id },
      view: viewJson(this.workspace.identity, this.record),
    };
  }
}

export function messageDriver(workspace: Workspace, actor: Actor | undefined, record: MessageRecord): Message {
  return new MessageDriver(workspace, actor, record);
}

export function channelView(workspace: Workspace, actor: Actor | undefined, channel: string): ChannelView {
  return {
    messages: () => workspace.topLevel(channel).map((record) => messageDriver(workspace, actor, record)),
    thread: (ts) => workspace.replies(channel, ts).map((record) => messageDriver(workspace, actor, record)),
  };
}
