import {
  isChoice,
  isExternalSelect,
  isObject,
  isSelect,
  isTextInput,
  normalizeText,
  placedElements,
  plainText,
  type PlacedElement,
  type StateValue,
  type StateValues,
} from './block-kit.ts';
import type { BotResponse } from './bot-link.ts';
import { responseActionViolations, slackMessages } from './limits.ts';
import { viewJson } from './payloads.ts';
import { interactionFields, quoted, ViewDriver, type Actor, type OptionInfo, type Surface } from './surface.ts';
import type { ViewRecord, Workspace } from './workspace.ts';

/**
 * An input as Slack keeps its value: by block id and action id, whatever its label says now (an
 * update may rename a field and keep what was typed in it).
 */
export interface InputRef {
  blockId: string;
  actionId: string;
}

export interface ModalDriver extends Surface {
  readonly viewId: string;
  readonly title: string;
  readonly callbackId: string;
  readonly privateMetadata: string;
  readonly isOpen: boolean;
  /** Types into the text input (plain text, number, email, url, date, time) of the input block with this label or ids. */
  fill(field: string | InputRef, value: string): this;
  /** Picks an option of the select, radio group or checkboxes in the input block with this label, without dispatching. */
  choose(label: string, optionText: string): this;
  /** Takes an option off a multi-select or checkbox group in the input block with this label (the × on its chip); ids for user and conversation selects. */
  unchoose(label: string, optionText: string): this;
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

export class ModalView extends ViewDriver implements ModalDriver {
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

  fill(field: string | InputRef, value: string): this {
    this.actingPerson();
    const placed = this.input(field);
    const { element } = placed;
    if (!isTextInput(element))
      throw new Error(
        `"${placed.label ?? placed.actionId}" is a ${element.type ?? 'block'}, not a text input; use choose()`,
      );
    const type = element.type ?? 'plain_text_input';
    const state: StateValue =
      type === 'datepicker'
        ? { type, selected_date: value }
        : type === 'timepicker'
          ? { type, selected_time: value }
          : { type, value };
    (this.record.values[placed.blockId] ??= {})[placed.actionId] = state;
    this.workspace.changed();
    return this;
  }

  choose(label: string, optionText: string): this {
    this.actingPerson();
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

  unchoose(label: string, optionText: string): this {
    this.actingPerson();
    const placed = this.input(label);
    const state = this.record.values[placed.blockId]?.[placed.actionId];
    const key = Object.keys(state ?? {}).find((name) => name.startsWith('selected_') && Array.isArray(state?.[name]));
    if (state === undefined || key === undefined) {
      throw new Error(
        `"${label}" is a ${placed.element.type ?? 'block'}, which holds one choice; choose another instead`,
      );
    }
    const wanted = normalizeText(optionText);
    const chosen = state[key] as unknown[];
    const kept = chosen.filter((item) =>
      typeof item === 'string'
        ? item !== optionText
        : normalizeText(plainText((item as { text?: { text?: string } }).text)) !== wanted,
    );
    if (kept.length === chosen.length) throw new Error(`"${optionText}" is not chosen in "${label}"`);
    state[key] = kept;
    this.workspace.changed();
    return this;
  }

  async search(labelOrPlaceholder: string, query: string): Promise<OptionInfo[]> {
    this.actingPerson();
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
    this.actingPerson();
    if (this.record.definition['submit'] === undefined) throw new Error(`${this.describe()} has no submit button`);
    const missing = this.missingRequired();
    if (missing.length > 0) {
      throw new Error(`Slack does not submit ${this.describe()} while required fields are empty: ${quoted(missing)}`);
    }
    this.record.errors = {};
    const { person } = this;
    const response = await person.bot.interaction({
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
    this.actingPerson();
    const { person } = this;
    const notify = this.record.definition['notify_on_close'] === true;
    const view = viewJson(this.workspace.identity, this.record);
    this.workspace.popModal(person.profile.id);
    if (!notify) return undefined;
    return person.bot.interaction({ type: 'view_closed', ...interactionFields(person), view, is_cleared: false });
  }

  private input(field: string | InputRef): PlacedElement {
    const inputs = placedElements(this.record.blocks).filter(({ block }) => block.type === 'input');
    const found =
      typeof field === 'string'
        ? inputs.find((placed) => placed.label === normalizeText(field))
        : inputs.find((placed) => placed.blockId === field.blockId && placed.actionId === field.actionId);
    if (found === undefined) {
      const named = typeof field === 'string' ? `labelled "${field}"` : `${field.blockId}/${field.actionId}`;
      throw new Error(
        `No input ${named} in ${this.describe()}; inputs: ${quoted(inputs.map((placed) => placed.label ?? placed.actionId))}`,
      );
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

  /** What Slack does with the body of the ack to a view_submission; an empty body closes the view. */
  private applyResponseAction(body: unknown): void {
    const userId = this.person.profile.id;
    if (body === undefined || (isObject(body) && Object.keys(body).length === 0)) {
      this.workspace.popModal(userId);
      return;
    }
    const reply = isObject(body) ? body : { body };
    const inputBlockIds = new Set(
      this.record.blocks.filter((block) => block.type === 'input').map((block) => block.block_id ?? ''),
    );
    const violations = isObject(body)
      ? responseActionViolations(reply, inputBlockIds, this.workspace.modalStack(userId).length)
      : [{ pointer: '/', message: 'must be a JSON object' }];
    const refused = violations.length > 0;
    this.workspace.record(
      'response_action',
      reply,
      refused
        ? { ok: false, error: 'invalid_arguments', response_metadata: { messages: slackMessages(violations) } }
        : { ok: true },
    );
    // Slack keeps the modal as it was and tells the person something went wrong.
    if (refused) return;
    switch (reply['response_action']) {
      case 'errors':
        this.record.errors = Object.fromEntries(
          Object.entries(reply['errors'] as object).map(([blockId, message]) => [blockId, String(message)]),
        );
        break;
      case 'update':
        this.workspace.updateView(this.record, reply['view'] as Record<string, unknown>);
        break;
      case 'push':
        this.workspace.pushModal(userId, reply['view'] as Record<string, unknown>, this.record.conversation);
        break;
      case 'clear':
        this.workspace.closeModals(userId);
        break;
    }
  }
}

function isEmpty(state: StateValue | undefined): boolean {
  if (state === undefined) return true;
  const values = Object.entries(state)
    .filter(([key]) => key !== 'type')
    .map(([, value]) => value);
  return values.every(
    (value) => value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0),
  );
}
