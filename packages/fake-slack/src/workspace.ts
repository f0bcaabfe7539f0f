import { randomBytes, randomInt } from 'node:crypto';
import { stateFor, withSlackIds, type Block, type StateValues, type SurfaceContext } from './block-kit.ts';
import type { Profile } from './payloads.ts';
import type { StepDefinition, StepExecutionRecord } from './functions.ts';

/** Who the fake workspace and the app installed in it are. */
export interface Identity {
  teamId: string;
  teamDomain: string;
  enterpriseId?: string;
  appId: string;
  botUserId: string;
  botId: string;
  botToken: string;
  commandName: string;
}

/** One Web API or response_url call the bot made, or a reply Slack would have refused. */
export interface WebApiCall {
  /** The Web API method, `response_url`, or the interaction whose reply Slack checked (`response_action`, `options_response`, `command_response`). */
  method: string;
  args: Record<string, unknown>;
  ok: boolean;
  error?: string;
  response: unknown;
  at: Date;
}

export interface MessageRecord {
  ts: string;
  channel: string;
  threadTs?: string;
  ephemeral: boolean;
  /** The only person who sees an ephemeral message. */
  audience?: string;
  text: string;
  blocks: Block[];
  postedBy: string;
  values: StateValues;
  deleted: boolean;
  edited: boolean;
  /** Ids of files shared with the message (files.completeUploadExternal). */
  files?: string[];
  /** Message metadata the app attached (chat.postMessage or chat.update `metadata`). */
  metadata?: MessageMetadata;
}

/** Slack message metadata: an event type and its payload, for other apps to read. */
export interface MessageMetadata {
  event_type: string;
  event_payload: Record<string, unknown>;
}

/** A file uploaded with files.getUploadURLExternal, the upload URL, and files.completeUploadExternal. */
export interface FileRecord {
  id: string;
  filename: string;
  /** The byte count announced to files.getUploadURLExternal. */
  length: number;
  /** The bytes posted to the upload URL; undefined until then. */
  content?: Buffer;
  /** Set by files.completeUploadExternal. */
  completed?: {
    title: string;
    channel?: string;
    threadTs?: string;
    initialComment?: string;
    /** The message that shared the file in the channel. */
    messageTs?: string;
  };
}

export interface ViewRecord {
  id: string;
  userId: string;
  kind: 'modal' | 'home';
  definition: Record<string, unknown>;
  blocks: Block[];
  hash: string;
  rootViewId: string | null;
  previousViewId: string | null;
  values: StateValues;
  /** Field errors shown under inputs, by block_id. */
  errors: Record<string, string>;
  open: boolean;
  /** The conversation the person was viewing when the modal opened, if any. */
  conversation?: string;
}

interface TriggerRecord {
  userId: string;
  /** The conversation the interaction happened in; modals opened with it default to it. */
  channel?: string;
  exchanged: boolean;
  expired: boolean;
}

export interface ResponseUrlRecord {
  userId: string;
  channel: string;
  /** The message the interaction came from; replace_original and delete_original act on it. */
  original?: MessageRecord;
  uses: number;
}

interface ChannelRecord {
  messages: MessageRecord[];
  replies: Map<string, MessageRecord[]>;
}

/**
 * What people have seen in the workspace, as plain data to keep across a restart: each channel's
 * messages and threads, each person's ephemeral messages, and who is in which channel.
 */
export interface ConversationHistory {
  channels: Record<string, { messages: MessageRecord[]; replies: Record<string, MessageRecord[]> }>;
  ephemerals: Record<string, MessageRecord[]>;
  members: Record<string, string[]>;
}

/** Slack lets an app use a response_url five times. */
export const RESPONSE_URL_USES = 5;

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function slackId(prefix: string, length = 10): string {
  let id = prefix;
  for (let i = 0; i < length; i += 1) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

/** The in-memory state of the workspace: conversations, views, triggers, response URLs and the call log. */
export class Workspace {
  readonly identity: Identity;
  readonly calls: WebApiCall[] = [];
  hooksBaseUrl = '';
  /** Where upload URLs point: the fake itself, e.g. `http://127.0.0.1:1234/upload/`. */
  uploadBaseUrl = '';
  /** The bot token's scopes, when the test gave them; undefined grants every scope. */
  scopes: ReadonlySet<string> | undefined;
  private readonly channels = new Map<string, ChannelRecord>();
  private readonly ephemerals = new Map<string, MessageRecord[]>();
  private readonly views = new Map<string, ViewRecord>();
  private readonly modalStacks = new Map<string, string[]>();
  private readonly homes = new Map<string, string>();
  private readonly externalIds = new Map<string, string>();
  private readonly triggers = new Map<string, TriggerRecord>();
  private readonly responseUrls = new Map<string, ResponseUrlRecord>();
  private readonly listeners = new Set<() => void>();
  /** Channel members by channel id: people join by acting in a channel, or by `join`. */
  private readonly members = new Map<string, Set<string>>();
  private lastTsMicros = 0;
  /** People the workspace knows, by id (users.info). */
  readonly people = new Map<string, Profile>();
  /** Files by id, and the upload URLs' tokens that lead to them. */
  readonly files = new Map<string, FileRecord>();
  private readonly uploadTokens = new Map<string, string>();
  /** Channels the bot has been removed from; it is a member of every other one. */
  private readonly botAbsent = new Set<string>();
  /** The app's custom steps (manifest.yml `functions`), by callback id. */
  readonly steps = new Map<string, StepDefinition>();
  /** Runs of custom steps, by function_execution_id, oldest first. */
  readonly executions = new Map<string, StepExecutionRecord>();

  /** The running step execution whose workflow token this is. */
  executionByToken(token: unknown): StepExecutionRecord | undefined {
    if (typeof token !== 'string' || !token.startsWith('xwfp-')) return undefined;
    return [...this.executions.values()].find((execution) => execution.token === token);
  }

  constructor(identity: Identity) {
    this.identity = identity;
  }

  join(userId: string, channel: string): void {
    const members = this.members.get(channel) ?? new Set<string>();
    members.add(userId);
    this.members.set(channel, members);
  }

  setBotMembership(channel: string, member: boolean): void {
    if (member) this.botAbsent.delete(channel);
    else this.botAbsent.add(channel);
  }

  botIsIn(channel: string): boolean {
    return !this.botAbsent.has(channel);
  }

  /** A new file waiting for its bytes; returns it and the token of its upload URL. */
  startUpload(filename: string, length: number): { file: FileRecord; token: string } {
    const file: FileRecord = { id: slackId('F'), filename, length };
    const token = randomBytes(16).toString('base64url');
    this.files.set(file.id, file);
    this.uploadTokens.set(token, file.id);
    return { file, token };
  }

  fileForUpload(token: string): FileRecord | undefined {
    const id = this.uploadTokens.get(token);
    return id === undefined ? undefined : this.files.get(id);
  }

  /** The channels (not DMs) a person is a member of, in id order. */
  channelsOf(userId: string): string[] {
    return [...this.members]
      .filter(([channel, people]) => !channel.startsWith('D') && people.has(userId))
      .map(([channel]) => channel)
      .sort();
  }

  /** Runs `listener` after every change, so waiters re-check at once instead of on their next poll. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    for (const listener of this.listeners) listener();
  }

  record(method: string, args: Record<string, unknown>, response: Record<string, unknown>): WebApiCall {
    const ok = response['ok'] === true;
    const call: WebApiCall = { method, args, ok, response, at: new Date() };
    if (!ok && typeof response['error'] === 'string') call.error = response['error'];
    this.calls.push(call);
    this.changed();
    return call;
  }

  /** A message timestamp: unique and increasing, as Slack's are within a channel. */
  newTs(): string {
    this.lastTsMicros = Math.max(Date.now() * 1000, this.lastTsMicros + 1);
    const seconds = Math.floor(this.lastTsMicros / 1_000_000);
    return `${seconds}.${String(this.lastTsMicros % 1_000_000).padStart(6, '0')}`;
  }

  newHash(): string {
    return `${Math.floor(Date.now() / 1000)}.${randomBytes(4).toString('hex')}`;
  }

  /** The conversations as plain data (structuredClone-able and JSON-ready). */
  history(): ConversationHistory {
    return structuredClone({
      channels: Object.fromEntries(
        [...this.channels].map(([id, record]) => [
          id,
          { messages: record.messages, replies: Object.fromEntries(record.replies) },
        ]),
      ),
      ephemerals: Object.fromEntries(this.ephemerals),
      members: Object.fromEntries([...this.members].map(([channel, people]) => [channel, [...people]])),
    });
  }

  /** Takes the conversations of an earlier `history()` back; new messages are stamped after theirs. */
  restoreHistory(history: ConversationHistory): void {
    const { channels, ephemerals, members } = structuredClone(history);
    for (const [id, record] of Object.entries(channels))
      this.channels.set(id, { messages: record.messages, replies: new Map(Object.entries(record.replies)) });
    for (const [person, messages] of Object.entries(ephemerals)) this.ephemerals.set(person, messages);
    for (const [channel, people] of Object.entries(members)) this.members.set(channel, new Set(people));
    const all = [
      ...Object.values(channels).flatMap((record) => [...record.messages, ...Object.values(record.replies).flat()]),
      ...Object.values(ephemerals).flat(),
    ];
    for (const { ts } of all) {
      const [seconds = 0, micros = 0] = ts.split('.').map(Number);
      this.lastTsMicros = Math.max(this.lastTsMicros, seconds * 1_000_000 + micros);
    }
    this.changed();
  }

  // Triggers

  issueTrigger(userId: string, channel?: string): string {
    const id = `${randomInt(1e9, 1e10 - 1)}.${randomInt(1e9, 1e10 - 1)}.${randomBytes(16).toString('hex')}`;
    this.triggers.set(id, { userId, exchanged: false, expired: false, ...(channel !== undefined ? { channel } : {}) });
    return id;
  }

  /** Uses up a trigger_id, as views.open and views.push do, or says why Slack would refuse it. */
  exchangeTrigger(id: unknown): { userId: string; channel?: string } | { error: string } {
    const trigger = typeof id === 'string' ? this.triggers.get(id) : undefined;
    if (trigger === undefined) return { error: 'invalid_trigger_id' };
    if (trigger.expired) return { error: 'expired_trigger_id' };
    if (trigger.exchanged) return { error: 'exchanged_trigger_id' };
    trigger.exchanged = true;
    return { userId: trigger.userId, ...(trigger.channel !== undefined ? { channel: trigger.channel } : {}) };
  }

  expireTriggers(): void {
    for (const trigger of this.triggers.values()) trigger.expired = true;
  }

  // Response URLs

  issueResponseUrl(
    kind: 'commands' | 'actions',
    fields: Omit<ResponseUrlRecord, 'uses'>,
  ): { url: string; target: ResponseUrlRecord } {
    const path = `${kind}/${this.identity.teamId}/${randomInt(1e9, 1e10 - 1)}/${randomBytes(12).toString('base64url')}`;
    const target = { ...fields, uses: 0 };
    this.responseUrls.set(path, target);
    return { url: `${this.hooksBaseUrl}${path}`, target };
  }

  responseUrl(path: string): ResponseUrlRecord | undefined {
    return this.responseUrls.get(path);
  }

  // Messages

  private channelRecord(id: string): ChannelRecord {
    let channel = this.channels.get(id);
    if (channel === undefined) {
      channel = { messages: [], replies: new Map() };
      this.channels.set(id, channel);
    }
    return channel;
  }

  addMessage(fields: {
    channel: string;
    text: string;
    blocks: Block[];
    postedBy: string;
    threadTs?: string;
    ephemeral?: boolean;
    audience?: string;
    files?: string[];
    metadata?: MessageMetadata;
  }): MessageRecord {
    const blocks = withSlackIds(fields.blocks);
    const message: MessageRecord = {
      ts: this.newTs(),
      channel: fields.channel,
      ephemeral: fields.ephemeral ?? false,
      text: fields.text,
      blocks,
      postedBy: fields.postedBy,
      values: stateFor(blocks),
      deleted: false,
      edited: false,
      ...(fields.threadTs !== undefined ? { threadTs: fields.threadTs } : {}),
      ...(fields.audience !== undefined ? { audience: fields.audience } : {}),
      ...(fields.files !== undefined ? { files: fields.files } : {}),
      ...(fields.metadata !== undefined ? { metadata: fields.metadata } : {}),
    };
    if (message.ephemeral && message.audience !== undefined) {
      const seen = this.ephemerals.get(message.audience) ?? [];
      seen.push(message);
      this.ephemerals.set(message.audience, seen);
    } else {
      const channel = this.channelRecord(message.channel);
      if (message.threadTs !== undefined && message.threadTs !== message.ts) {
        const replies = channel.replies.get(message.threadTs) ?? [];
        replies.push(message);
        channel.replies.set(message.threadTs, replies);
      } else {
        channel.messages.push(message);
      }
    }
    this.changed();
    return message;
  }

  /** chat.update: new content; metadata left out of the update stays as it was. */
  replaceMessage(message: MessageRecord, content: { text: string; blocks: Block[]; metadata?: MessageMetadata }): void {
    message.text = content.text;
    if (content.metadata !== undefined) message.metadata = content.metadata;
    message.blocks = withSlackIds(content.blocks);
    message.values = stateFor(message.blocks, message.values);
    message.edited = true;
    this.changed();
  }

  deleteMessage(message: MessageRecord): void {
    message.deleted = true;
    this.changed();
  }

  /** A channel message or thread reply, as chat.update and chat.getPermalink look it up. */
  findMessage(channel: string, ts: string): MessageRecord | undefined {
    const record = this.channels.get(channel);
    if (record === undefined) return undefined;
    const all = [...record.messages, ...[...record.replies.values()].flat()];
    return all.find((message) => message.ts === ts && !message.deleted);
  }

  topLevel(channel: string): MessageRecord[] {
    return (this.channels.get(channel)?.messages ?? []).filter((message) => !message.deleted);
  }

  replies(channel: string, threadTs: string): MessageRecord[] {
    return (this.channels.get(channel)?.replies.get(threadTs) ?? []).filter((message) => !message.deleted);
  }

  ephemeralsFor(userId: string): MessageRecord[] {
    return (this.ephemerals.get(userId) ?? []).filter((message) => !message.deleted);
  }

  // Views

  view(id: string): ViewRecord | undefined {
    return this.views.get(id);
  }

  viewByExternalId(externalId: string): ViewRecord | undefined {
    const id = this.externalIds.get(externalId);
    return id === undefined ? undefined : this.views.get(id);
  }

  /** True when another live view already uses this external_id, which Slack refuses. */
  externalIdTaken(definition: Record<string, unknown>, exceptViewId?: string): boolean {
    const externalId = definition['external_id'];
    if (typeof externalId !== 'string' || externalId === '') return false;
    const holder = this.viewByExternalId(externalId);
    return holder?.open === true && holder.id !== exceptViewId;
  }

  /** The person's open modals, root first. */
  modalStack(userId: string): ViewRecord[] {
    return (this.modalStacks.get(userId) ?? []).map((id) => this.views.get(id)).filter((view) => view !== undefined);
  }

  home(userId: string): ViewRecord | undefined {
    const id = this.homes.get(userId);
    return id === undefined ? undefined : this.views.get(id);
  }

  private createView(
    userId: string,
    kind: ViewRecord['kind'],
    definition: Record<string, unknown>,
    stack: ViewRecord[],
    conversation?: string,
  ): ViewRecord {
    const blocks = withSlackIds(definition['blocks'] as Block[]);
    const context: SurfaceContext = conversation !== undefined ? { conversation } : {};
    const view: ViewRecord = {
      id: slackId('V'),
      userId,
      kind,
      definition,
      blocks,
      hash: this.newHash(),
      rootViewId: kind === 'modal' ? (stack[0]?.id ?? null) : null,
      previousViewId: kind === 'modal' ? (stack.at(-1)?.id ?? null) : null,
      values: stateFor(blocks, {}, context),
      errors: {},
      open: true,
      ...context,
    };
    if (view.kind === 'modal' && view.rootViewId === null) view.rootViewId = view.id;
    this.views.set(view.id, view);
    this.indexExternalId(view);
    return view;
  }

  private indexExternalId(view: ViewRecord): void {
    const externalId = view.definition['external_id'];
    if (typeof externalId === 'string' && externalId !== '') this.externalIds.set(externalId, view.id);
  }

  /** views.open: a new modal replaces whatever the person had open. */
  openModal(userId: string, definition: Record<string, unknown>, conversation?: string): ViewRecord {
    this.closeModals(userId);
    const view = this.createView(userId, 'modal', definition, [], conversation);
    this.modalStacks.set(userId, [view.id]);
    this.changed();
    return view;
  }

  pushModal(userId: string, definition: Record<string, unknown>, conversation?: string): ViewRecord {
    const stack = this.modalStack(userId);
    const view = this.createView(userId, 'modal', definition, stack, conversation);
    this.modalStacks.set(userId, [...stack.map((open) => open.id), view.id]);
    this.changed();
    return view;
  }

  /** views.update and response_action update: same view id, new content and hash, input kept. */
  updateView(view: ViewRecord, definition: Record<string, unknown>): void {
    view.definition = definition;
    view.blocks = withSlackIds(definition['blocks'] as Block[]);
    view.values = stateFor(
      view.blocks,
      view.values,
      view.conversation !== undefined ? { conversation: view.conversation } : {},
    );
    view.hash = this.newHash();
    view.errors = {};
    this.indexExternalId(view);
    this.changed();
  }

  /** Closes the top modal (an empty 200 to a view_submission, or the person pressing Close). */
  popModal(userId: string): void {
    const stack = this.modalStacks.get(userId) ?? [];
    const top = stack.pop();
    if (top !== undefined) this.markClosed(top);
    this.changed();
  }

  closeModals(userId: string): void {
    for (const id of this.modalStacks.get(userId) ?? []) this.markClosed(id);
    this.modalStacks.set(userId, []);
    this.changed();
  }

  private markClosed(id: string): void {
    const view = this.views.get(id);
    if (view !== undefined) view.open = false;
  }

  /** views.publish: the person's Home tab keeps one view id across publishes. */
  publishHome(userId: string, definition: Record<string, unknown>): ViewRecord {
    const current = this.home(userId);
    if (current !== undefined) {
      this.updateView(current, definition);
      return current;
    }
    const view = this.createView(userId, 'home', definition, []);
    this.homes.set(userId, view.id);
    this.changed();
    return view;
  }
}
