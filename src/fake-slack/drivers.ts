import {
  isExternalSelect, isChoice, isSelect, isTextInput, normalizeText, placedElements, plainText, staticOptions, visibleText,
  type Block, type OptionObject, type PlacedElement, type StateValue, type StateValues,
} from './block-kit.ts';
import type { BotLink, BotResponse } from './bot-link.ts';
import { optionsResponseViolations, slackMessages, MAX_MODAL_STACK, viewViolations } from './limits.ts';
import {
  channelName, eventEnvelope, messageJson, slashCommandForm, userJson, VERIFICATION_TOKEN, viewJson, workspaceFields,
  type Profile,
} from './payloads.ts';
import { applyMessageReply } from './web-api.ts';
import { slackId, type MessageRecord, type ViewRecord, type Workspace } from './workspace.ts';

export interface ButtonInfo {
  text: string;
  actionId: string;
  blockId: string;
  value?: string;
  url?: string;
  style?: string;
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
  /** Clicks a button by its text. A button with a `confirm` dialog needs `{ confirm: true }`. */
  click(buttonText: string, options?: { confirm?: boolean }): Promise<BotResponse>;
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
}

export interface ModalDriver extends Surface {
  readonly viewId: string;
  readonly title: string;
  readonly callbackId: string;
  readonly privateMetadata: string;
  readonly isOpen: boolean;
  /** Types into the text input (plain text, number, email, url, date, time) of the input block with this label. */
  fill(label: string, value: string): this;
  /** Picks an option of the select, radio group or checkboxes in the input block with this label, without dispatching. */
  choose(label: string, optionText: string): this;
  /** Types a query into an external select: posts `block_suggestion` and returns the options the bot offers. */
  search(labelOrPlaceholder: string, query: string): Promise<OptionInfo[]>;
  /** Posts `view_submission` with the current state and applies the bot's `response_action`. */
  submit(): Promise<BotResponse>;
  /** The field errors shown, by input label. */
  errors(): Record<string, string>;
  /** Presses Close: posts `view_closed` when the view asks for it, and takes the view off the stack. */
  close(): Promise<BotResponse | undefined>;
  /** A copy of `state.values` as the next submission will send it. */
  values(): StateValues;
}

export interface SlackPerson {
  readonly id: string;
  readonly name: string;
  /** Types the slash command with this text; a reply in the ack body is shown as Slack shows it. */
  command(text: string, options?: { channel?: string }): Promise<BotResponse>;
  /** The top modal of this person's view stack. */
  modal(): ModalDriver | undefined;
  /** This person's App Home tab as last published. */
  home(): Surface | undefined;
  /** A channel's messages as this person sees them, to act on as this person. */
  channel(id: string): ChannelView;
  /** Ephemeral messages only this person sees, oldest first. */
  ephemerals(channel?: string): Message[];
  lastEphemeral(): Message | undefined;
  /** Runs a message shortcut on a message. */
  shortcut(callbackId: string, message: Pick<Message, 'ts' | 'channel'>): Promise<BotResponse>;
  /** Opens the App Home tab: an `app_home_opened` event. */
  openHome(): Promise<BotResponse>;
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

function quoted(items: string[]): string {
  return items.length === 0 ? 'none' : items.map((item) => `"${item}"`).join(', ');
}

function interactionFields(actor: Actor): Record<string, unknown> {
  return {
    user: userJson(actor.profile),
    api_app_id: actor.workspace.identity.appId,
    token: VERIFICATION_TOKEN,
    ...workspaceFields(actor.profile),
  };
}

function dmChannel(userId: string): string {
  return `D${userId.replace(/^[UW]/, '')}`;
}

/** Delivers an Events API envelope around `event`. */
export function deliverEvent(workspace: Workspace, bot: BotLink, event: Record<string, unknown>, teamId?: string): Promise<BotResponse> {
  const envelope = eventEnvelope(workspace.identity, event, teamId ?? workspace.identity.teamId, slackId('Ev'));
  return bot.deliverJson(envelope);
}

/** What a person's choice leaves in `state.values`, given what was there before. */
function chosenState(element: PlacedElement['element'], option: OptionObject, previous: StateValue | undefined): StateValue {
  const type = element.type ?? '';
  const list = (key: string): unknown[] => (Array.isArray(previous?.[key]) ? (previous[key] as unknown[]) : []);
  switch (type) {
    case 'checkboxes': {
      const selected = list('selected_options') as OptionObject[];
      const ticked = selected.some((item) => item.value === option.value);
      return { type, selected_options: ticked ? selected.filter((item) => item.value !== option.value) : [...selected, option] };
    }
    case 'multi_static_select':
    case 'multi_external_select': {
      const selected = list('selected_options') as OptionObject[];
      return { type, selected_options: selected.some((item) => item.value === option.value) ? selected : [...selected, option] };
    }
    case 'users_select':
      return { type, selected_user: option.value };
    case 'multi_users_select':
      return { type, selected_users: [...new Set([...(list('selected_users') as string[]), option.value])] };
    case 'conversations_select':
      return { type, selected_conversation: option.value };
    case 'multi_conversations_select':
      return { type, selected_conversations: [...new Set([...(list('selected_conversations') as string[]), option.value])] };
    case 'channels_select':
      return { type, selected_channel: option.value };
    case 'multi_channels_select':
      return { type, selected_channels: [...new Set([...(list('selected_channels') as string[]), option.value])] };
    default:
      return { type, selected_option: option };
  }
}

function takesIds(element: PlacedElement['element']): boolean {
  return /(users|conversations|channels)_select$/.test(element.type ?? '');
}

abstract class SurfaceDriver implements Surface {
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

  async click(buttonText: string, options: { confirm?: boolean } = {}): Promise<BotResponse> {
    const actor = this.actingPerson();
    const wanted = normalizeText(buttonText);
    const placed = placedElements(this.blocks)
      .find(({ element }) => element.type === 'button' && normalizeText(plainText(element.text)) === wanted);
    if (placed === undefined) {
      throw new Error(`No button "${buttonText}" on ${this.describe()}; buttons: ${quoted(this.buttons().map((button) => button.text))}`);
    }
    const { confirm } = placed.element;
    if (confirm !== undefined && options.confirm !== true) {
      throw new Error(
        `"${buttonText}" opens a confirmation dialog first ("${plainText(confirm.title)}": ${plainText(confirm.text)}); click it with { confirm: true }`,
      );
    }
    const { element } = placed;
    return this.dispatch(actor, placed, {
      type: 'button',
      text: element.text,
      ...(element.value !== undefined ? { value: element.value } : {}),
      ...(element.style !== undefined ? { style: element.style } : {}),
      ...(element.url !== undefined ? { url: element.url } : {}),
    });
  }

  async select(labelOrPlaceholder: string, optionText: string): Promise<BotResponse | undefined> {
    const actor = this.actingPerson();
    const placed = this.findChoice(labelOrPlaceholder, (placed) => isSelect(placed.element) || isChoice(placed.element));
    if (isExternalSelect(placed.element)) await this.suggest(actor, placed, optionText);
    const state = this.keepChoice(placed, this.option(placed, optionText));
    if (placed.block.type === 'input' && placed.block.dispatch_action !== true) return undefined;
    return this.dispatch(actor, placed, state);
  }

  protected actingPerson(): Actor {
    if (this.actor === undefined) {
      throw new Error(`Nobody acts on ${this.describe()} read from the workspace; read it through a person, e.g. person.channel(id)`);
    }
    if (!this.isLive()) throw new Error(`${this.describe()} is no longer shown`);
    return this.actor;
  }

  protected findChoice(labelOrPlaceholder: string, accept: (placed: PlacedElement) => boolean): PlacedElement {
    const wanted = normalizeText(labelOrPlaceholder);
    const candidates = placedElements(this.blocks).filter(accept);
    const found = candidates.find((placed) =>
      placed.label === wanted || normalizeText(plainText(placed.element.placeholder)) === wanted);
    if (found === undefined) {
      const names = candidates.map((placed) => placed.label ?? (normalizeText(plainText(placed.element.placeholder)) || placed.actionId));
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
      const hint = isExternalSelect(placed.element) && offered.length === 0 ? ' (search the external select first)' : '';
      throw new Error(`No option "${optionText}" in "${where}"${hint}; options: ${quoted(offered.map((item) => plainText(item.text)))}`);
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
      trigger_id: this.workspace.issueTrigger(actor.profile.id),
      ...this.containerFields(actor, true),
      actions: [{ ...fields, action_id: placed.actionId, block_id: placed.blockId, action_ts: this.workspace.newTs() }],
    };
    return actor.bot.deliverPayload(payload);
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
    const response = await actor.bot.deliverPayload(payload);
    const args = { action_id: placed.actionId, block_id: placed.blockId, value: query, status: response.status };
    const violations = response.status === 200
      ? optionsResponseViolations(response.body)
      : [{ pointer: '/', message: `the request failed with HTTP ${response.status}` }];
    if (violations.length > 0) {
      this.workspace.record('options_response', args, { ok: false, error: 'invalid_options', response_metadata: { messages: slackMessages(violations) } });
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

  protected containerFields(actor: Actor, forAction: boolean): Record<string, unknown> {
    const { record } = this;
    return {
      container: { type: 'message', message_ts: record.ts, channel_id: record.channel, is_ephemeral: record.ephemeral },
      channel: { id: record.channel, name: channelName(record.channel) },
      // Slack does not send back the content of ephemeral messages.
      ...(record.ephemeral ? {} : { message: messageJson(this.workspace.identity, record) }),
      state: { values: record.values },
      ...(forAction
        ? { response_url: this.workspace.issueResponseUrl('actions', { userId: actor.profile.id, channel: record.channel, original: record }).url }
        : {}),
    };
  }
}

class ViewDriver extends SurfaceDriver {
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

  protected containerFields(): Record<string, unknown> {
    return {
      container: { type: 'view', view_id: this.record.id },
      view: viewJson(this.workspace.identity, this.record),
    };
  }
}

class ModalView extends ViewDriver implements ModalDriver {
  private readonly person: Actor;

  constructor(workspace: Workspace, actor: Actor, record: ViewRecord) {
    super(workspace, actor, record);
    this.person = actor;
  }

  get viewId(): string {
    return this.record.id;
  }

  get title(): string {
    return plainText(this.record.definition['title'] as { text?: string } | undefined);
  }

  get callbackId(): string {
    return String(this.record.definition['callback_id'] ?? '');
  }

  get privateMetadata(): string {
    return String(this.record.definition['private_metadata'] ?? '');
  }

  get isOpen(): boolean {
    return this.record.open;
  }

  values(): StateValues {
    return structuredClone(this.record.values);
  }

  override text(): string {
    return [this.title, super.text()].filter((part) => part !== '').join('\n');
  }

  fill(label: string, value: string): this {
    this.assertOnTop();
    const placed = this.input(label);
    const { element } = placed;
    if (!isTextInput(element)) throw new Error(`"${label}" is a ${element.type ?? 'block'}, not a text input; use choose()`);
    const type = element.type ?? 'plain_text_input';
    const state: StateValue = type === 'datepicker'
      ? { type, selected_date: value }
      : type === 'timepicker' ? { type, selected_time: value } : { type, value };
    (this.record.values[placed.blockId] ??= {})[placed.actionId] = state;
    this.workspace.changed();
    return this;
  }

  choose(label: string, optionText: string): this {
    this.assertOnTop();
    const placed = this.input(label);
    if (!isSelect(placed.element) && !isChoice(placed.element)) {
      throw new Error(`"${label}" is a ${placed.element.type ?? 'block'}, not a select; use fill()`);
    }
    if (placed.block.dispatch_action === true) {
      throw new Error(`"${label}" dispatches an action when changed; use await modal.select(...)`);
    }
    this.keepChoice(placed, this.option(placed, optionText));
    return this;
  }

  async search(labelOrPlaceholder: string, query: string): Promise<OptionInfo[]> {
    this.assertOnTop();
    const placed = this.findChoice(labelOrPlaceholder, ({ element }) => isExternalSelect(element));
    return this.suggest(this.person, placed, query);
  }

  errors(): Record<string, string> {
    const byLabel: Record<string, string> = {};
    for (const [blockId, message] of Object.entries(this.record.errors)) {
      const block = this.record.blocks.find((candidate) => candidate.block_id === blockId);
      byLabel[normalizeText(plainText(block?.label)) || blockId] = message;
    }
    return byLabel;
  }

  async submit(): Promise<BotResponse> {
    this.assertOnTop();
    if (this.record.definition['submit'] === undefined) throw new Error(`${this.describe()} has no submit button`);
    const missing = this.missingRequired();
    if (missing.length > 0) {
      throw new Error(`Slack does not submit ${this.describe()} while required fields are empty: ${quoted(missing)}`);
    }
    this.record.errors = {};
    const { person } = this;
    const response = await person.bot.deliverPayload({
      type: 'view_submission',
      ...interactionFields(person),
      trigger_id: this.workspace.issueTrigger(person.profile.id),
      view: viewJson(this.workspace.identity, this.record),
      response_urls: [],
    });
    if (response.status === 200) this.applyResponseAction(response.body);
    return response;
  }

  async close(): Promise<BotResponse | undefined> {
    this.assertOnTop();
    const { person } = this;
    const notify = this.record.definition['notify_on_close'] === true;
    const view = viewJson(this.workspace.identity, this.record);
    this.workspace.popModal(person.profile.id);
    if (!notify) return undefined;
    return person.bot.deliverPayload({ type: 'view_closed', ...interactionFields(person), view, is_cleared: false });
  }

  private input(label: string): PlacedElement {
    const wanted = normalizeText(label);
    const inputs = placedElements(this.record.blocks).filter(({ block }) => block.type === 'input');
    const found = inputs.find((placed) => placed.label === wanted);
    if (found === undefined) {
      throw new Error(`No input labelled "${label}" in ${this.describe()}; inputs: ${quoted(inputs.map((placed) => placed.label ?? placed.actionId))}`);
    }
    return found;
  }

  private missingRequired(): string[] {
    return placedElements(this.record.blocks)
      .filter(({ block }) => block.type === 'input' && block.optional !== true)
      .filter(({ blockId, actionId }) => isEmpty(this.record.values[blockId]?.[actionId]))
      .map((placed) => placed.label ?? placed.actionId);
  }

  /** A person can only act on the modal on top of their stack. */
  protected override actingPerson(): Actor {
    const actor = super.actingPerson();
    const top = this.workspace.modalStack(actor.profile.id).at(-1);
    if (top?.id !== this.record.id) throw new Error(`${this.describe()} is covered by another modal`);
    return actor;
  }

  private assertOnTop(): void {
    this.actingPerson();
  }

  /** What Slack does with the body of the ack to a view_submission. */
  private applyResponseAction(body: unknown): void {
    const userId = this.person.profile.id;
    if (body === undefined || body === '' || (typeof body === 'object' && body !== null && Object.keys(body).length === 0)) {
      this.workspace.popModal(userId);
      return;
    }
    const reply = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const action = reply['response_action'];
    const refuse = (message: string, pointer = '/'): void => {
      this.workspace.record('response_action', reply, { ok: false, error: 'invalid_arguments', response_metadata: { messages: slackMessages([{ pointer, message }]) } });
    };
    if (action === 'errors') {
      const errors = reply['errors'];
      if (errors === null || typeof errors !== 'object') return refuse('errors must be an object keyed by block_id', '/errors');
      const inputIds = new Set(this.record.blocks.filter((block) => block.type === 'input').map((block) => block.block_id));
      const unknown = Object.keys(errors).filter((blockId) => !inputIds.has(blockId));
      if (unknown.length > 0) return refuse(`no input block with block_id ${quoted(unknown)}`, '/errors');
      this.record.errors = Object.fromEntries(Object.entries(errors).map(([blockId, message]) => [blockId, String(message)]));
    } else if (action === 'update' || action === 'push') {
      const violations = viewViolations(reply['view']);
      if (violations.length > 0) {
        this.workspace.record('response_action', reply, { ok: false, error: 'invalid_arguments', response_metadata: { messages: slackMessages(violations) } });
        return;
      }
      const view = reply['view'] as Record<string, unknown>;
      if (action === 'update') {
        this.workspace.updateView(this.record, view);
      } else {
        if (this.workspace.modalStack(userId).length >= MAX_MODAL_STACK) return refuse('push_limit_reached');
        this.workspace.pushModal(userId, view);
      }
    } else if (action === 'clear') {
      this.workspace.closeModals(userId);
    } else {
      return refuse(`unknown response_action ${JSON.stringify(action)}`, '/response_action');
    }
    this.workspace.record('response_action', reply, { ok: true });
  }
}

function isEmpty(state: StateValue | undefined): boolean {
  if (state === undefined) return true;
  const values = Object.entries(state).filter(([key]) => key !== 'type').map(([, value]) => value);
  return values.every((value) => value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0));
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

export const DEFAULT_CHANNEL = 'C0GENERAL';

/** A person in the workspace, acting through the Slack client. */
export class Person implements SlackPerson {
  private readonly actor: Actor;

  constructor(actor: Actor) {
    this.actor = actor;
  }

  get id(): string {
    return this.actor.profile.id;
  }

  get name(): string {
    return this.actor.profile.name;
  }

  async command(text: string, options: { channel?: string } = {}): Promise<BotResponse> {
    const { workspace, profile, bot } = this.actor;
    const channel = options.channel ?? DEFAULT_CHANNEL;
    const { url, target } = workspace.issueResponseUrl('commands', { userId: profile.id, channel });
    const form = slashCommandForm(workspace.identity, profile, {
      channel,
      text,
      responseUrl: url,
      triggerId: workspace.issueTrigger(profile.id),
    });
    const response = await bot.deliverForm(form);
    // Slack shows a message in the ack body as the command's first reply.
    if (response.status === 200 && response.body !== undefined) {
      const reply = typeof response.body === 'string' ? { text: response.body } : (response.body as Record<string, unknown>);
      workspace.record('command_response', reply, applyMessageReply(workspace, target, reply));
    }
    return response;
  }

  modal(): ModalDriver | undefined {
    const top = this.actor.workspace.modalStack(this.id).at(-1);
    return top === undefined ? undefined : new ModalView(this.actor.workspace, this.actor, top);
  }

  home(): Surface | undefined {
    const home = this.actor.workspace.home(this.id);
    return home === undefined ? undefined : new ViewDriver(this.actor.workspace, this.actor, home);
  }

  channel(id: string): ChannelView {
    return channelView(this.actor.workspace, this.actor, id);
  }

  ephemerals(channel?: string): Message[] {
    return this.actor.workspace.ephemeralsFor(this.id)
      .filter((record) => channel === undefined || record.channel === channel)
      .map((record) => messageDriver(this.actor.workspace, this.actor, record));
  }

  lastEphemeral(): Message | undefined {
    return this.ephemerals().at(-1);
  }

  async shortcut(callbackId: string, message: Pick<Message, 'ts' | 'channel'>): Promise<BotResponse> {
    const { workspace, profile, bot } = this.actor;
    const record = workspace.findMessage(message.channel, message.ts);
    if (record === undefined) throw new Error(`No message ${message.ts} in ${message.channel} to run a shortcut on (ephemeral messages have no shortcuts)`);
    return bot.deliverPayload({
      type: 'message_action',
      callback_id: callbackId,
      trigger_id: workspace.issueTrigger(profile.id),
      message_ts: record.ts,
      response_url: workspace.issueResponseUrl('actions', { userId: profile.id, channel: record.channel, original: record }).url,
      message: messageJson(workspace.identity, record),
      channel: { id: record.channel, name: channelName(record.channel) },
      action_ts: workspace.newTs(),
      ...interactionFields(this.actor),
    });
  }

  openHome(): Promise<BotResponse> {
    const { workspace, profile, bot } = this.actor;
    const home = workspace.home(profile.id);
    return deliverEvent(workspace, bot, {
      type: 'app_home_opened',
      user: profile.id,
      channel: dmChannel(profile.id),
      tab: 'home',
      event_ts: workspace.newTs(),
      ...(home !== undefined ? { view: viewJson(workspace.identity, home) } : {}),
    }, profile.teamId);
  }
}
