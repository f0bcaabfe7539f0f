import { isObject, type Block } from './block-kit.ts';
import { MAX_MODAL_STACK, messageViolations, slackMessages, viewViolations, type Violation } from './limits.ts';
import { messageJson, userInfoJson, viewJson } from './payloads.ts';
import { parameterViolations, type StepExecutionRecord } from './functions.ts';
import {
  RESPONSE_URL_USES,
  type FileRecord,
  type MessageMetadata,
  type MessageRecord,
  type ResponseUrlRecord,
  type ViewRecord,
  type Workspace,
} from './workspace.ts';

type Args = Record<string, unknown>;
type Result = Record<string, unknown>;

function failure(error: string, violations: Violation[] = []): Result {
  return violations.length > 0
    ? { ok: false, error, response_metadata: { messages: slackMessages(violations) } }
    : { ok: false, error };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

type Checked<T> = { value: T } | { refused: Result };

/** The message content of chat.* arguments or a response_url body, or why Slack refuses it. */
function messageContent(args: Args): Checked<{ text: string; blocks: Block[] }> {
  const blocks = args['blocks'];
  if (typeof blocks === 'string') return { refused: failure('invalid_blocks_format') };
  const violations = messageViolations(blocks);
  if (violations.length > 0) return { refused: failure('invalid_blocks', violations) };
  const words = text(args['text']) ?? '';
  const list = Array.isArray(blocks) ? (blocks as Block[]) : [];
  if (words === '' && list.length === 0) return { refused: failure('no_text') };
  return { value: { text: words, blocks: list } };
}

/** Event types Slack takes: letters, digits, underscores and hyphens. */
const EVENT_TYPE = /^[A-Za-z0-9_-]{1,255}$/;

/**
 * The `metadata` argument of chat.postMessage and chat.update: absent, or an object with an
 * `event_type` and an `event_payload` object. Slack refuses a malformed one outright.
 */
function metadataArgument(args: Args): Checked<MessageMetadata | undefined> {
  const metadata = args['metadata'];
  if (metadata === undefined) return { value: undefined };
  if (typeof metadata === 'string') return { refused: failure('invalid_metadata_format') };
  const violations: Violation[] = [];
  if (!isObject(metadata)) violations.push({ pointer: '/metadata', message: 'must be an object' });
  else {
    const type = metadata['event_type'];
    if (typeof type !== 'string' || !EVENT_TYPE.test(type))
      violations.push({ pointer: '/metadata/event_type', message: 'must be letters, digits, _ or -' });
    if (!isObject(metadata['event_payload']))
      violations.push({ pointer: '/metadata/event_payload', message: 'must be an object' });
    for (const key of Object.keys(metadata))
      if (key !== 'event_type' && key !== 'event_payload')
        violations.push({ pointer: `/metadata/${key}`, message: 'is not a metadata field' });
  }
  if (violations.length > 0) return { refused: failure('invalid_metadata_schema', violations) };
  return { value: metadata as unknown as MessageMetadata };
}

/**
 * The bot's message from chat.postMessage or chat.postEphemeral arguments, added to the
 * workspace, or why Slack refuses it (a missing channel first, then a missing user, then content).
 */
function postAsBot(workspace: Workspace, args: Args, { ephemeral }: { ephemeral: boolean }): Checked<MessageRecord> {
  const channel = text(args['channel']);
  if (channel === undefined || channel === '') return { refused: failure('channel_not_found') };
  const audience = ephemeral ? text(args['user']) : undefined;
  if (ephemeral && (audience === undefined || audience === '')) return { refused: failure('user_not_in_channel') };
  const checked = messageContent(args);
  if ('refused' in checked) return checked;
  const metadata = metadataArgument(args);
  if ('refused' in metadata) return metadata;
  if (ephemeral && metadata.value !== undefined)
    return {
      refused: failure('invalid_arguments', [{ pointer: '/metadata', message: 'ephemeral messages take none' }]),
    };
  const threadTs = text(args['thread_ts']);
  return {
    value: workspace.addMessage({
      channel,
      ...checked.value,
      ...(metadata.value !== undefined ? { metadata: metadata.value } : {}),
      postedBy: workspace.identity.botUserId,
      ...(audience !== undefined ? { ephemeral: true, audience } : {}),
      ...(threadTs !== undefined ? { threadTs } : {}),
    }),
  };
}

function permalink(workspace: Workspace, channel: string, ts: string, threadTs?: string): string {
  const base = `https://${workspace.identity.teamDomain}.slack.com/archives/${channel}/p${ts.replace('.', '')}`;
  return threadTs === undefined ? base : `${base}?thread_ts=${threadTs}&cid=${channel}`;
}

function viewArgument(args: Args): Checked<Record<string, unknown>> {
  const view = args['view'];
  if (!isObject(view))
    return { refused: failure('invalid_arguments', [{ pointer: '/view', message: 'must provide a view object' }]) };
  const violations = viewViolations(view);
  return violations.length > 0 ? { refused: failure('invalid_arguments', violations) } : { value: view };
}

function viewResult(workspace: Workspace, view: ViewRecord): Result {
  return { ok: true, view: viewJson(workspace.identity, view) };
}

/** The scope a method needs, for the methods whose scope the fake checks when given the token's scopes. */
const REQUIRED_SCOPES: Record<string, string> = {
  'files.getUploadURLExternal': 'files:write',
  'files.completeUploadExternal': 'files:write',
  'users.info': 'users:read',
  'users.lookupByEmail': 'users:read.email',
};

/** Whether the token may read e-mail addresses (a fake given no scopes grants every scope). */
const readsEmail = (workspace: Workspace) => workspace.scopes === undefined || workspace.scopes.has('users:read.email');

/** A whole number from a form field (text) or a JSON body (number). */
function wholeNumber(value: unknown): number | undefined {
  const raw = typeof value === 'number' ? String(value) : text(value);
  return raw !== undefined && /^\d+$/.test(raw.trim()) ? Number(raw) : undefined;
}

function channelIdOk(id: string): boolean {
  return /^[CGD][A-Z0-9]+$/.test(id);
}

/** The `files` argument of files.completeUploadExternal: `[{ id, title? }]`. */
function filesArgument(value: unknown): Array<{ id: string; title?: string }> | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const entries: Array<{ id: string; title?: string }> = [];
  for (const entry of value) {
    if (!isObject(entry) || typeof entry['id'] !== 'string' || entry['id'] === '') return undefined;
    const title = entry['title'];
    if (title !== undefined && typeof title !== 'string') return undefined;
    entries.push({ id: entry['id'], ...(title !== undefined ? { title } : {}) });
  }
  return entries;
}

function fileJson(file: FileRecord): Result {
  return {
    id: file.id,
    name: file.filename,
    title: file.completed?.title ?? file.filename,
    size: file.length,
    ...(file.completed?.channel !== undefined ? { channels: [file.completed.channel] } : {}),
  };
}

/** The running execution a functions.complete* call names, or Slack's refusal. */
function runningExecution(workspace: Workspace, args: Args): Checked<StepExecutionRecord> {
  const id = text(args['function_execution_id']);
  const execution = id === undefined ? undefined : workspace.executions.get(id);
  if (execution === undefined) return { refused: failure('function_execution_not_found') };
  execution.completions += 1;
  if (execution.state !== 'running') return { refused: failure('execution_not_in_running_state') };
  return { value: execution };
}

const methods: Record<string, (workspace: Workspace, args: Args) => Result> = {
  // A custom step done: its outputs must be exactly what the step declares, each of its type.
  'functions.completeSuccess': (workspace, args) => {
    const found = runningExecution(workspace, args);
    if ('refused' in found) return found.refused;
    const execution = found.value;
    const outputs = args['outputs'];
    if (!isObject(outputs))
      return failure('invalid_arguments', [{ pointer: '/outputs', message: 'must be an object' }]);
    const violations = parameterViolations(outputs, execution.definition.output_parameters, 'outputs');
    if (violations.length > 0) return failure('parameter_validation_failed', violations);
    execution.state = 'completed';
    execution.outputs = outputs;
    workspace.changed();
    return { ok: true };
  },

  // A custom step failed: the workflow stops and shows the error to the people running it.
  'functions.completeError': (workspace, args) => {
    const found = runningExecution(workspace, args);
    if ('refused' in found) return found.refused;
    const execution = found.value;
    const error = text(args['error']);
    if (error === undefined || error.trim() === '')
      return failure('invalid_arguments', [{ pointer: '/error', message: 'must be a non-empty string' }]);
    execution.state = 'failed';
    execution.error = error;
    workspace.changed();
    return { ok: true };
  },

  'users.info': (workspace, args) => {
    const id = text(args['user']);
    if (id === undefined || id === '') return failure('user_not_found');
    if (id === workspace.identity.botUserId) {
      return {
        ok: true,
        user: {
          id,
          team_id: workspace.identity.teamId,
          name: 'faultline',
          real_name: 'Faultline',
          deleted: false,
          is_bot: true,
          profile: { real_name: 'Faultline', display_name: '', bot_id: workspace.identity.botId },
        },
      };
    }
    const person = workspace.people.get(id);
    return person === undefined
      ? failure('user_not_found')
      : { ok: true, user: userInfoJson(person, readsEmail(workspace)) };
  },

  'users.lookupByEmail': (workspace, args) => {
    const email = text(args['email'])?.trim().toLowerCase();
    if (email === undefined || email === '') return failure('invalid_arguments');
    // Slack matches the address whatever its case.
    const person = [...workspace.people.values()].find((p) => p.email?.toLowerCase() === email);
    return person === undefined ? failure('users_not_found') : { ok: true, user: userInfoJson(person, true) };
  },

  // The first step of Slack's external upload: a URL to post the bytes to, and the file's id.
  'files.getUploadURLExternal': (workspace, args) => {
    const filename = text(args['filename']);
    const length = wholeNumber(args['length']);
    const violations: Violation[] = [];
    if (filename === undefined || filename.trim() === '')
      violations.push({ pointer: '/filename', message: 'is required' });
    if (length === undefined || length < 1)
      violations.push({ pointer: '/length', message: 'must be a whole number of bytes, at least 1' });
    if (violations.length > 0 || filename === undefined || length === undefined)
      return failure('invalid_arguments', violations);
    const { file, token } = workspace.startUpload(filename, length);
    return { ok: true, upload_url: `${workspace.uploadBaseUrl}${token}`, file_id: file.id };
  },

  // The last step: shares uploaded files in a channel (or keeps them private without one).
  'files.completeUploadExternal': (workspace, args) => {
    const entries = filesArgument(args['files']);
    if (entries === undefined)
      return failure('invalid_arguments', [
        { pointer: '/files', message: 'must be a non-empty array of { id, title }' },
      ]);
    const channel = text(args['channel_id']);
    const threadTs = text(args['thread_ts']);
    if (threadTs !== undefined && channel === undefined)
      return failure('invalid_arguments', [{ pointer: '/thread_ts', message: 'needs channel_id' }]);
    if (channel !== undefined) {
      if (!channelIdOk(channel)) return failure('channel_not_found');
      if (!workspace.botIsIn(channel)) return failure('not_in_channel');
    }
    const files: FileRecord[] = [];
    for (const entry of entries) {
      const file = workspace.files.get(entry.id);
      if (file === undefined)
        return failure('file_not_found', [{ pointer: '/files', message: `no upload ${entry.id}` }]);
      if (file.content === undefined)
        return failure('file_not_found', [
          { pointer: '/files', message: `${entry.id} has not been uploaded to its upload_url` },
        ]);
      if (file.completed !== undefined)
        return failure('file_not_found', [{ pointer: '/files', message: `${entry.id} is already complete` }]);
      files.push(file);
    }
    const initialComment = text(args['initial_comment']);
    const shared =
      channel === undefined
        ? undefined
        : workspace.addMessage({
            channel,
            text: initialComment ?? '',
            blocks: [],
            postedBy: workspace.identity.botUserId,
            files: files.map((file) => file.id),
            ...(threadTs !== undefined ? { threadTs } : {}),
          });
    for (const [index, file] of files.entries()) {
      file.completed = {
        title: entries[index]?.title ?? file.filename,
        ...(channel !== undefined ? { channel } : {}),
        ...(threadTs !== undefined ? { threadTs } : {}),
        ...(initialComment !== undefined ? { initialComment } : {}),
        ...(shared !== undefined ? { messageTs: shared.ts } : {}),
      };
    }
    workspace.changed();
    return { ok: true, files: files.map(fileJson) };
  },

  // Channel ids tell the kind as in Slack: C channels, G private or group conversations, D direct messages.
  'conversations.info': (_workspace, args) => {
    const id = text(args['channel']);
    if (!id || !/^[CGD][A-Z0-9]+$/.test(id)) return failure('channel_not_found');
    return {
      ok: true,
      channel: {
        id,
        is_channel: id.startsWith('C'),
        is_group: id.startsWith('G'),
        is_private: !id.startsWith('C'),
        is_im: id.startsWith('D'),
        is_mpim: false,
        is_archived: false,
        is_member: true,
      },
    };
  },

  'users.conversations': (workspace, args) => {
    const user = text(args['user']);
    if (!user) return failure('invalid_arguments');
    const limit = Math.min(Number(text(args['limit']) ?? 100) || 100, 1000);
    const all = workspace.channelsOf(user);
    const start = Number(text(args['cursor']) ?? 0) || 0;
    const page = all.slice(start, start + limit);
    const next = start + limit < all.length ? String(start + limit) : '';
    return {
      ok: true,
      channels: page.map((id) => ({ id, is_channel: true, is_member: true })),
      response_metadata: { next_cursor: next },
    };
  },

  'auth.test': (workspace) => {
    const { identity } = workspace;
    return {
      ok: true,
      url: `https://${identity.teamDomain}.slack.com/`,
      team: identity.teamDomain,
      user: 'faultline',
      team_id: identity.teamId,
      user_id: identity.botUserId,
      bot_id: identity.botId,
      is_enterprise_install: false,
      ...(identity.enterpriseId !== undefined ? { enterprise_id: identity.enterpriseId } : {}),
    };
  },

  'chat.postMessage': (workspace, args) => {
    const posted = postAsBot(workspace, args, { ephemeral: false });
    if ('refused' in posted) return posted.refused;
    const message = posted.value;
    return { ok: true, channel: message.channel, ts: message.ts, message: messageJson(workspace.identity, message) };
  },

  'chat.postEphemeral': (workspace, args) => {
    const posted = postAsBot(workspace, args, { ephemeral: true });
    return 'refused' in posted ? posted.refused : { ok: true, message_ts: posted.value.ts };
  },

  'chat.update': (workspace, args) => {
    const channel = text(args['channel']) ?? '';
    const message = workspace.findMessage(channel, text(args['ts']) ?? '');
    if (message === undefined) return failure('message_not_found');
    if (message.postedBy !== workspace.identity.botUserId) return failure('cant_update_message');
    const blocks = args['blocks'];
    if (typeof blocks === 'string') return failure('invalid_blocks_format');
    const violations = messageViolations(blocks);
    if (violations.length > 0) return failure('invalid_blocks', violations);
    if (args['text'] === undefined && blocks === undefined) return failure('no_text');
    const metadata = metadataArgument(args);
    if ('refused' in metadata) return metadata.refused;
    // Slack keeps the previous blocks when the update leaves them out; an empty array removes them.
    workspace.replaceMessage(message, {
      text: text(args['text']) ?? message.text,
      blocks: Array.isArray(blocks) ? (blocks as Block[]) : message.blocks,
      ...(metadata.value !== undefined ? { metadata: metadata.value } : {}),
    });
    return { ok: true, channel, ts: message.ts, text: message.text, message: messageJson(workspace.identity, message) };
  },

  'chat.delete': (workspace, args) => {
    const channel = text(args['channel']) ?? '';
    const message = workspace.findMessage(channel, text(args['ts']) ?? '');
    if (message === undefined) return failure('message_not_found');
    if (message.postedBy !== workspace.identity.botUserId) return failure('cant_delete_message');
    workspace.deleteMessage(message);
    return { ok: true, channel, ts: message.ts };
  },

  'chat.getPermalink': (workspace, args) => {
    const channel = text(args['channel']) ?? '';
    const message = workspace.findMessage(channel, text(args['message_ts']) ?? '');
    if (message === undefined) return failure('message_not_found');
    return { ok: true, channel, permalink: permalink(workspace, channel, message.ts, message.threadTs) };
  },

  'views.open': (workspace, args) => {
    const checked = viewArgument(args);
    if ('refused' in checked) return checked.refused;
    const view = checked.value;
    const trigger = workspace.exchangeTrigger(args['trigger_id'] ?? args['interactivity_pointer']);
    if ('error' in trigger) return failure(trigger.error);
    if (view['type'] !== 'modal')
      return failure('invalid_arguments', [{ pointer: '/view/type', message: 'must be "modal"' }]);
    if (workspace.externalIdTaken(view)) return failure('duplicate_external_id');
    return viewResult(workspace, workspace.openModal(trigger.userId, view, trigger.channel));
  },

  'views.push': (workspace, args) => {
    const checked = viewArgument(args);
    if ('refused' in checked) return checked.refused;
    const view = checked.value;
    const trigger = workspace.exchangeTrigger(args['trigger_id'] ?? args['interactivity_pointer']);
    if ('error' in trigger) return failure(trigger.error);
    const stack = workspace.modalStack(trigger.userId);
    if (stack.length === 0) return failure('not_found');
    if (stack.length >= MAX_MODAL_STACK) return failure('push_limit_reached');
    if (workspace.externalIdTaken(view)) return failure('duplicate_external_id');
    return viewResult(workspace, workspace.pushModal(trigger.userId, view, trigger.channel));
  },

  'views.update': (workspace, args) => {
    const viewId = text(args['view_id']);
    const externalId = text(args['external_id']);
    if ((viewId === undefined) === (externalId === undefined)) {
      return failure('invalid_arguments', [
        { pointer: '/', message: 'exactly one of view_id or external_id is required' },
      ]);
    }
    const target = viewId !== undefined ? workspace.view(viewId) : workspace.viewByExternalId(externalId ?? '');
    if (target === undefined || !target.open) return failure('not_found');
    const hash = text(args['hash']);
    if (hash !== undefined && hash !== target.hash) return failure('hash_conflict');
    const checked = viewArgument(args);
    if ('refused' in checked) return checked.refused;
    const view = checked.value;
    if (workspace.externalIdTaken(view, target.id)) return failure('duplicate_external_id');
    workspace.updateView(target, view);
    return viewResult(workspace, target);
  },

  'views.publish': (workspace, args) => {
    const userId = text(args['user_id']);
    if (userId === undefined || userId === '')
      return failure('invalid_arguments', [{ pointer: '/user_id', message: 'is required' }]);
    const checked = viewArgument(args);
    if ('refused' in checked) return checked.refused;
    const view = checked.value;
    if (view['type'] !== 'home')
      return failure('invalid_arguments', [{ pointer: '/view/type', message: 'must be "home"' }]);
    const hash = text(args['hash']);
    const current = workspace.home(userId);
    if (hash !== undefined && current !== undefined && hash !== current.hash) return failure('hash_conflict');
    return viewResult(workspace, workspace.publishHome(userId, view));
  },
};

/** Runs one Web API method against the workspace and records the call. */
export function callWebApi(workspace: Workspace, method: string, args: Args): Result {
  const handler = methods[method];
  const needed = REQUIRED_SCOPES[method];
  const response =
    handler === undefined
      ? failure('unknown_method')
      : needed !== undefined && workspace.scopes !== undefined && !workspace.scopes.has(needed)
        ? { ok: false, error: 'missing_scope', needed, provided: [...workspace.scopes].join(',') }
        : handler(workspace, args);
  workspace.record(method, args, response);
  return response;
}

/**
 * What Slack does with a message reply to an interaction: through a response_url, or in the body
 * of the ack to a slash command. Without replace_original or delete_original it posts a new
 * message: to the channel when `response_type` is `in_channel`, otherwise ephemeral to the person.
 */
export function applyMessageReply(workspace: Workspace, target: Omit<ResponseUrlRecord, 'uses'>, body: Args): Result {
  const original = target.original !== undefined && !target.original.deleted ? target.original : undefined;
  if (body['delete_original'] === true) {
    if (original === undefined) return failure('message_not_found');
    workspace.deleteMessage(original);
    return { ok: true };
  }
  const checked = messageContent(body);
  if ('refused' in checked) return checked.refused;
  const content = checked.value;
  if (body['replace_original'] === true && original !== undefined) {
    workspace.replaceMessage(original, content);
    return { ok: true };
  }
  const threadTs = text(body['thread_ts']);
  const inChannel = body['response_type'] === 'in_channel';
  const message = workspace.addMessage({
    channel: target.channel,
    text: content.text,
    blocks: content.blocks,
    postedBy: workspace.identity.botUserId,
    ...(inChannel ? {} : { ephemeral: true, audience: target.userId }),
    ...(threadTs !== undefined ? { threadTs } : {}),
  });
  // A slash command's reply has no message behind it; later replace_original acts on the first reply.
  target.original ??= message;
  return { ok: true };
}

/** A POST to a response_url: at most five uses, then Slack answers 404 `used_url`. */
export function postToResponseUrl(
  workspace: Workspace,
  path: string,
  body: Args,
): { status: number; response: Result } {
  const target = workspace.responseUrl(path);
  let response: Result;
  let status = 200;
  if (target === undefined) {
    [status, response] = [404, failure('expired_url')];
  } else if (target.uses >= RESPONSE_URL_USES) {
    [status, response] = [404, failure('used_url')];
  } else {
    target.uses += 1;
    response = applyMessageReply(workspace, target, body);
    if (response['ok'] !== true) status = 400;
  }
  workspace.record('response_url', body, response);
  return { status, response };
}

/**
 * A POST of a file's bytes to its upload URL: raw, or as the one file of a multipart form (as
 * @slack/web-api sends it). The byte count must be the length announced; a URL takes one upload.
 */
export async function receiveUpload(
  workspace: Workspace,
  token: string,
  contentType: string | undefined,
  body: Buffer,
): Promise<{ status: number; text: string }> {
  const file = workspace.fileForUpload(token);
  let outcome: { status: number; text: string; error?: string };
  if (file === undefined) {
    outcome = { status: 404, text: 'Not found', error: 'invalid_upload_url' };
  } else if (file.content !== undefined) {
    outcome = { status: 400, text: 'This upload URL has already been used', error: 'already_uploaded' };
  } else {
    const bytes =
      contentType?.startsWith('multipart/form-data') === true ? await multipartFile(contentType, body) : body;
    if (bytes === undefined) outcome = { status: 400, text: 'No file in the form', error: 'no_file_data' };
    else if (bytes.length !== file.length)
      outcome = { status: 400, text: `Expected ${file.length} bytes, got ${bytes.length}`, error: 'length_mismatch' };
    else {
      file.content = bytes;
      outcome = { status: 200, text: `OK - ${bytes.length}` };
    }
  }
  const response = outcome.error === undefined ? { ok: true } : { ok: false, error: outcome.error };
  workspace.record('file_upload', { file_id: file?.id, bytes: body.length }, response);
  return outcome;
}

async function multipartFile(contentType: string, body: Buffer): Promise<Buffer | undefined> {
  try {
    const form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
    for (const value of form.values()) {
      if (typeof value !== 'string') return Buffer.from(await value.arrayBuffer());
    }
  } catch {
    // A malformed form has no file in it.
  }
  return undefined;
}
