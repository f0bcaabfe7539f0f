/**
 * A fake Slack for the end-to-end tests (and later the local playground). It delivers signed
 * requests to the bot's Bolt HTTP endpoint as Slack does, serves the Web API and the response_urls
 * the bot calls, records every call and refuses what Slack refuses. Tests act as people:
 *
 *   const fake = await startFakeSlack({ signingSecret, botToken });  // the bot's SLACK_API_URL = fake.apiUrl
 *   fake.setBotUrl(`http://127.0.0.1:${port}/slack/events`);
 *   const alice = fake.user('U0ALICE');
 *   await alice.command('login');
 *   const modal = await fake.waitFor(() => alice.modal(), 'the login modal');
 *   await modal.fill('Email', 'alice@example.com').fill('Password', 'secret').submit();
 *   expect(fake.failures()).toEqual([]);
 *
 * With an `appToken` it also plays Slack's side of Socket Mode: the bot opens a connection with
 * apps.connections.open, and while one is open every delivery goes over it as an envelope, the
 * ack's payload standing in for the HTTP response body, so the same drivers work in both modes.
 *
 * Triggers expire only when a test calls expireTriggers(), never by the wall clock.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { BotLink, type BotResponse, type DeliveryOptions } from './bot-link.ts';
import { deliverEvent, Person, type SlackPerson } from './person.ts';
import { ACK_DEADLINE_MS, SocketModeLink } from './socket-mode.ts';
import { channelView, type ChannelView } from './surface.ts';
import { WebApiFaults, type WebApiFault } from './faults.ts';
import { callWebApi, postToResponseUrl, receiveUpload } from './web-api.ts';
import { slackId, Workspace, type ConversationHistory, type FileRecord, type WebApiCall } from './workspace.ts';
import {
  functionExecutedEvent,
  newExecution,
  parameterViolations,
  type StepDefinition,
  type StepExecutionRecord,
  withUserContexts,
} from './functions.ts';
import { eventEnvelope } from './payloads.ts';

export type { BotResponse, DeliveryOptions } from './bot-link.ts';
export type { ButtonInfo, ChannelView, ClickOptions, Message, OptionInfo, Surface } from './surface.ts';
export type { InputRef, ModalDriver } from './modal.ts';
export { DEFAULT_CHANNEL, type SlackPerson } from './person.ts';
export type { ConversationHistory, WebApiCall } from './workspace.ts';
export type { WebApiFault } from './faults.ts';
export type { StepDefinition, StepParameter } from './functions.ts';
export { USER_CONTEXT } from './functions.ts';
export { slackSignature } from './signature.ts';
export { FakeSlackbot, type SentRequest, type SlackbotSigning, type ToolAnswer } from './slackbot.ts';
import { FakeSlackbot, type SlackbotSigning } from './slackbot.ts';

export interface FakeSlackOptions {
  signingSecret: string;
  botToken: string;
  teamId?: string;
  teamDomain?: string;
  enterpriseId?: string;
  appId?: string;
  botUserId?: string;
  botId?: string;
  /** Default `/chaos`. */
  commandName?: string;
  /** The app-level token (`xapp-…`) that apps.connections.open accepts; without it there is no Socket Mode. */
  appToken?: string;
  /** How long a Socket Mode delivery waits for its ack before it fails; default Slack's 3 seconds. */
  ackTimeoutMs?: number;
  /**
   * The bot token's scopes. When given, the methods whose scope the fake knows (files.*External
   * need `files:write`, users.info `users:read`) answer `missing_scope` without it.
   */
  scopes?: readonly string[];
  /**
   * The app's custom steps, as manifest.yml declares them under `functions`: runStep delivers
   * function_executed for them, and functions.completeSuccess checks outputs against them.
   */
  steps?: Record<string, StepDefinition>;
  /** Conversations to start with, as an earlier run's `history()` gave them. */
  history?: ConversationHistory;
}

/** A run of a custom step, as a test (or the playground) follows it. */
export interface StepExecution {
  readonly id: string;
  readonly callbackId: string;
  readonly inputs: Record<string, unknown>;
  /** The person who used the workflow, whose user context Slack passed; undefined when nobody did. */
  readonly usedBy: string | undefined;
  /** `running` until the app calls functions.completeSuccess or functions.completeError. */
  readonly state: 'running' | 'completed' | 'failed';
  readonly outputs: Record<string, unknown> | undefined;
  readonly error: string | undefined;
  /** functions.complete* calls made for it, accepted or refused. */
  readonly completions: number;
  /** The app's answer to the delivery. */
  readonly delivery: BotResponse;
  /** Delivers its function_executed again, as Slack's retry. */
  redeliver(): Promise<BotResponse>;
}

/** A file the bot uploaded and completed, as a test reads it. */
export interface UploadedFile {
  id: string;
  filename: string;
  title: string;
  content: Buffer;
  /** The content as UTF-8 text. */
  text: string;
  /** Where it was shared; undefined when completed without a channel (private to the bot). */
  channel: string | undefined;
  threadTs: string | undefined;
  initialComment: string | undefined;
  /** The message that shared it. */
  messageTs: string | undefined;
}

export interface FakeSlack {
  /** Web API base URL for the bot (`SLACK_API_URL`), ending in `/api/`. */
  readonly apiUrl: string;
  /** Every Web API call, response_url post and checked interaction reply, oldest first. */
  readonly calls: readonly WebApiCall[];
  readonly teamId: string;
  readonly botUserId: string;
  /** Where signed requests go, e.g. `http://127.0.0.1:3000/slack/events`. */
  setBotUrl(url: string): void;
  /**
   * Slackbot's MCP client asking for a person (Slack identity auth), connected to the app's MCP
   * server at `url`; `signing` breaks its signature on purpose.
   */
  slackbot(personId: string, url: string, options?: { signing?: SlackbotSigning }): Promise<FakeSlackbot>;
  /**
   * A person in the workspace (the same object for the same id); users.info reports the names
   * given. An `email` given again changes the profile's e-mail, as a person may change it in Slack.
   */
  user(
    id: string,
    profile?: {
      name?: string;
      realName?: string;
      displayName?: string;
      teamId?: string;
      enterpriseId?: string;
      email?: string;
    },
  ): SlackPerson;
  /** Files uploaded and completed (files.completeUploadExternal), oldest first. */
  files(): UploadedFile[];
  /** The channels' messages and threads, the ephemeral messages and the channel members, to start a later run with. */
  history(): ConversationHistory;
  /** Removes the bot from a channel (it is in every channel until then), or adds it back. */
  setBotMembership(channel: string, member: boolean): void;
  callsTo(method: string): WebApiCall[];
  /** Calls Slack would have refused; a test expects none unless it provoked them. */
  failures(): WebApiCall[];
  /** A channel's messages, to read (act on them through a person's `channel(id)`). */
  channel(id: string): ChannelView;
  /** Every trigger_id issued so far expires, as Slack's do after 3 seconds. */
  expireTriggers(): void;
  /** Makes a person a member of a channel (running a command there does too). */
  join(userId: string, channel: string): void;
  /** The custom steps the app declares, by callback id. */
  readonly steps: ReadonlyMap<string, StepDefinition>;
  /**
   * The app's custom steps as Slack has them from now on: an app configuration updated since,
   * or one still declaring what an older manifest did.
   */
  declareSteps(steps: Record<string, StepDefinition>): void;
  /**
   * A workflow reaches one of the app's custom steps: delivers `function_executed` with these
   * inputs, checked against the step's declared inputs first (Workflow Builder lets nothing else
   * through). `usedBy` is the person who used the workflow: Slack fills each
   * `slack#/types/user_context` input with them, `{ id, secret }`; the builder sets none.
   * Resolves once the app has answered the delivery; follow `state` for the outcome.
   */
  runStep(callbackId: string, inputs: Record<string, unknown>, options?: { usedBy?: string }): Promise<StepExecution>;
  /** Every step run so far, oldest first. */
  stepExecutions(): StepExecution[];
  /** Delivers an Events API `event_callback` envelope around `event`. */
  event(event: Record<string, unknown>, options?: { teamId?: string }): Promise<BotResponse>;
  /** Posts a raw body to the bot over HTTP, for signature and retry tests. Objects are encoded per content type. */
  post(body: string | Record<string, unknown>, options: DeliveryOptions): Promise<BotResponse>;
  /** The last delivery again: a Slack retry (`x-slack-retry-num` or `retry_attempt`, default) or a duplicate without retry fields. */
  redeliverLast(options?: { as?: 'retry' | 'duplicate' }): Promise<BotResponse>;
  /** Socket Mode connections open now; deliveries use the newest. */
  socketConnections(): number;
  /**
   * Web API faults: `inject({ kind: 'ratelimit', method: 'chat.update', retryAfterSeconds: 30 })`
   * answers that method with Slack's 429 (recorded as a failed call, error `ratelimited`);
   * `{ kind: 'hang', method }` never answers it, and `held(method)` counts the calls it holds now.
   * `clear()` ends them all.
   */
  readonly faults: { inject(fault: WebApiFault): void; clear(): void; held(method: string): number };
  /**
   * Resolves with the predicate's first truthy value (awaited, when it returns a promise); rejects
   * naming `what` after `timeoutMs` (default 5000).
   */
  waitFor<T>(predicate: () => Awaitable<T | undefined | null | false>, what: string, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

/** Fields the Web API accepts as JSON inside a form-encoded body, as the @slack/web-api client sends them. */
const JSON_FIELDS = ['blocks', 'view', 'attachments', 'metadata', 'files', 'outputs'];

export async function startFakeSlack(options: FakeSlackOptions): Promise<FakeSlack> {
  const teamId = options.teamId ?? 'T0FAULTLN';
  const workspace = new Workspace({
    teamId,
    teamDomain: options.teamDomain ?? 'faultline-test',
    ...(options.enterpriseId !== undefined ? { enterpriseId: options.enterpriseId } : {}),
    appId: options.appId ?? 'A0FAULTLN',
    botUserId: options.botUserId ?? 'U0FAULTBOT',
    botId: options.botId ?? 'B0FAULTBOT',
    botToken: options.botToken,
    commandName: options.commandName ?? '/chaos',
  });
  workspace.scopes = options.scopes === undefined ? undefined : new Set(options.scopes);
  for (const [callbackId, definition] of Object.entries(options.steps ?? {}))
    workspace.steps.set(callbackId, definition);
  if (options.history !== undefined) workspace.restoreHistory(options.history);
  const deliveries = new Map<string, { envelope: Record<string, unknown>; response: BotResponse; retries: number }>();
  const stepView = (record: StepExecutionRecord): StepExecution => ({
    id: record.id,
    callbackId: record.callbackId,
    inputs: record.inputs,
    usedBy: record.usedBy,
    get state() {
      return record.state;
    },
    get outputs() {
      return record.outputs;
    },
    get error() {
      return record.error;
    },
    get completions() {
      return record.completions;
    },
    get delivery() {
      return deliveries.get(record.id)!.response;
    },
    redeliver() {
      const sent = deliveries.get(record.id)!;
      sent.retries += 1;
      return bot.redeliverEvent(sent.envelope, sent.retries);
    },
  });
  const bot = new BotLink(options.signingSecret);
  const socket =
    options.appToken === undefined
      ? undefined
      : new SocketModeLink({
          appId: workspace.identity.appId,
          appToken: options.appToken,
          ackDeadlineMs: options.ackTimeoutMs ?? ACK_DEADLINE_MS,
        });
  bot.socket = socket;
  const people = new Map<string, Person>();
  const faults = new WebApiFaults();

  const server = createServer((request, response) => {
    handle(workspace, socket, faults, request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  server.on('upgrade', (request, stream: Duplex, head: Buffer) => {
    if (socket === undefined) stream.destroy();
    else socket.upgrade(request, stream, head);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  workspace.hooksBaseUrl = `${base}/hooks/`;
  workspace.uploadBaseUrl = `${base}/upload/`;
  if (socket !== undefined) socket.baseUrl = `ws://127.0.0.1:${port}`;

  return {
    apiUrl: `${base}/api/`,
    calls: workspace.calls,
    teamId,
    botUserId: workspace.identity.botUserId,
    setBotUrl(url) {
      bot.url = url;
    },
    slackbot(personId, url, slackbotOptions = {}) {
      const profile = workspace.people.get(personId);
      return FakeSlackbot.connect({
        url,
        signingSecret: options.signingSecret,
        userId: personId,
        teamId: profile?.teamId ?? teamId,
        enterpriseId: profile?.enterpriseId ?? options.enterpriseId,
        ...slackbotOptions,
      });
    },
    user(id, profile = {}) {
      let person = people.get(id);
      if (person === undefined) {
        const personTeam = profile.teamId ?? teamId;
        const enterpriseId = profile.enterpriseId ?? options.enterpriseId;
        const name = profile.name ?? id.toLowerCase();
        const slackProfile = {
          id,
          name,
          realName: profile.realName ?? realNameFrom(id),
          displayName: profile.displayName ?? '',
          teamId: personTeam,
          teamDomain: personTeam === teamId ? workspace.identity.teamDomain : personTeam.toLowerCase(),
          ...(enterpriseId !== undefined ? { enterpriseId } : {}),
          ...(profile.email !== undefined ? { email: profile.email } : {}),
        };
        person = new Person({ workspace, bot, profile: slackProfile, suggestions: new Map() });
        people.set(id, person);
        workspace.people.set(id, slackProfile);
      } else if (profile.email !== undefined) {
        workspace.people.get(id)!.email = profile.email;
      }
      return person;
    },
    files: () =>
      [...workspace.files.values()].flatMap((file) =>
        file.completed === undefined || file.content === undefined
          ? []
          : [uploadedFile(file, file.content, file.completed)],
      ),
    steps: workspace.steps,
    declareSteps(steps) {
      workspace.steps.clear();
      for (const [callbackId, definition] of Object.entries(steps)) workspace.steps.set(callbackId, definition);
    },
    async runStep(callbackId, given, runOptions = {}) {
      const definition = workspace.steps.get(callbackId);
      if (definition === undefined) throw new Error(`The app declares no custom step ${callbackId}`);
      const filled = withUserContexts(given, definition.input_parameters, runOptions.usedBy);
      const inputs = filled.inputs;
      const violations = [...filled.violations, ...parameterViolations(inputs, definition.input_parameters, 'inputs')];
      if (violations.length > 0)
        throw new Error(
          `Workflow Builder would not run ${callbackId} with these inputs: ${violations.map((v) => `${v.pointer} ${v.message}`).join('; ')}`,
        );
      const record = newExecution(callbackId, definition, inputs, runOptions.usedBy);
      workspace.executions.set(record.id, record);
      const event = functionExecutedEvent(record, workspace.identity.appId, workspace.newTs());
      const envelope = eventEnvelope(workspace.identity, event, teamId, slackId('Ev'));
      const entry = { envelope, response: { status: 0, body: undefined } as BotResponse, retries: 0 };
      deliveries.set(record.id, entry);
      workspace.changed();
      entry.response = await bot.event(envelope);
      return stepView(record);
    },
    stepExecutions: () => [...workspace.executions.values()].map(stepView),
    history: () => workspace.history(),
    setBotMembership: (channel, member) => workspace.setBotMembership(channel, member),
    callsTo: (method) => workspace.calls.filter((call) => call.method === method),
    // A lookup that found nobody is Slack's answer to the question asked, not a refused call.
    failures: () => workspace.calls.filter((call) => !call.ok && !foundNobody(call)),
    channel: (id) => channelView(workspace, undefined, id),
    expireTriggers: () => workspace.expireTriggers(),
    join: (userId, channel) => workspace.join(userId, channel),
    event: (event, eventOptions = {}) => deliverEvent(workspace, bot, event, eventOptions.teamId),
    post(body, deliveryOptions) {
      const raw =
        typeof body === 'string'
          ? body
          : deliveryOptions.contentType === 'application/json'
            ? JSON.stringify(body)
            : new URLSearchParams(
                Object.entries(body).map(([key, value]): [string, string] => [key, String(value)]),
              ).toString();
      return bot.post(raw, deliveryOptions);
    },
    redeliverLast: (redelivery = {}) => bot.redeliverLast(redelivery.as ?? 'retry'),
    socketConnections: () => socket?.openConnections ?? 0,
    faults: {
      inject: (fault) => faults.inject(fault),
      clear: () => faults.clear(),
      held: (method) => faults.held(method),
    },
    waitFor: (predicate, what, timeoutMs = 5000) => waitFor(workspace, predicate, what, timeoutMs),
    async stop() {
      faults.clear();
      socket?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `U0ALICE` reads as `Alice`: a plausible full name for a person the test did not name. */
function foundNobody(call: WebApiCall): boolean {
  return call.method === 'users.lookupByEmail' && call.error === 'users_not_found';
}

function realNameFrom(id: string): string {
  const word = id.replace(/^[UW]0?/, '').toLowerCase();
  return word === '' ? id : word[0]!.toUpperCase() + word.slice(1);
}

function uploadedFile(
  file: FileRecord,
  content: Buffer,
  completed: NonNullable<FileRecord['completed']>,
): UploadedFile {
  return {
    id: file.id,
    filename: file.filename,
    title: completed.title,
    content,
    text: content.toString('utf8'),
    channel: completed.channel,
    threadTs: completed.threadTs,
    initialComment: completed.initialComment,
    messageTs: completed.messageTs,
  };
}

type Awaitable<T> = T | Promise<T>;

/** Re-checks on every change in the workspace and on a short poll for state held elsewhere. */
function waitFor<T>(
  workspace: Workspace,
  predicate: () => Awaitable<T | undefined | null | false>,
  what: string,
  timeoutMs: number,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let lastError: unknown;
    let settled = false;
    const poll = setInterval(() => check(), 10);
    const timer = setTimeout(() => {
      finish();
      const cause = lastError instanceof Error ? ` (last check threw: ${lastError.message})` : '';
      reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${cause}`));
    }, timeoutMs);
    const unsubscribe = workspace.onChange(() => queueMicrotask(check));
    function finish(): void {
      settled = true;
      clearInterval(poll);
      clearTimeout(timer);
      unsubscribe();
    }
    // A check whose predicate returns a promise settles when it does; one at a time.
    let pending = false;
    function settle(value: T | undefined | null | false): void {
      if (settled || value === undefined || value === null || value === false) return;
      finish();
      resolve(value);
    }
    function check(): void {
      if (settled || pending) return;
      try {
        const value = predicate();
        if (!(value instanceof Promise)) {
          settle(value);
          return;
        }
        pending = true;
        value
          .then(settle, (error: unknown) => {
            lastError = error;
          })
          .finally(() => {
            pending = false;
          });
      } catch (error) {
        lastError = error;
      }
    }
    check();
  });
}

async function handle(
  workspace: Workspace,
  socket: SocketModeLink | undefined,
  faults: WebApiFaults,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  const raw = bytes.toString('utf8');
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const reply = (status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    response.end(JSON.stringify(body));
  };

  if (request.method === 'POST' && url.pathname.startsWith('/api/')) {
    const method = url.pathname.slice('/api/'.length);
    const args = { ...Object.fromEntries(url.searchParams), ...parseArgs(request.headers['content-type'], raw) };
    const token = bearerToken(request.headers.authorization) ?? args['token'];
    delete args['token'];
    if (method === 'apps.connections.open') {
      reply(200, openConnection(workspace, socket, token));
      return;
    }
    // A step's workflow token acts for the app while its step runs; for functions.* only on its own step.
    const stepToken = workspace.executionByToken(token);
    const tokenRefused =
      stepToken === undefined
        ? token !== workspace.identity.botToken
        : stepToken.state !== 'running' ||
          (method.startsWith('functions.') && args['function_execution_id'] !== stepToken.id);
    if (tokenRefused) {
      const error =
        token === undefined || token === ''
          ? 'not_authed'
          : stepToken !== undefined && stepToken.state !== 'running'
            ? 'token_expired'
            : 'invalid_auth';
      const body = { ok: false, error };
      workspace.record(method, args, body);
      reply(200, body);
      return;
    }
    const fault = faults.take(method);
    if (fault?.kind === 'hang') {
      faults.hold(response, method);
      return;
    }
    if (fault?.kind === 'ratelimit') {
      const body = { ok: false, error: 'ratelimited' };
      workspace.record(method, args, body);
      response.writeHead(429, {
        'content-type': 'application/json; charset=utf-8',
        'retry-after': String(fault.retryAfterSeconds ?? 30),
      });
      response.end(JSON.stringify(body));
      return;
    }
    reply(200, callWebApi(workspace, method, args));
    return;
  }

  // Upload URLs need no token, as Slack's do not: the URL itself is the secret.
  if (request.method === 'POST' && url.pathname.startsWith('/upload/')) {
    const { status, text } = await receiveUpload(
      workspace,
      url.pathname.slice('/upload/'.length),
      request.headers['content-type'],
      bytes,
    );
    response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    response.end(text);
    return;
  }

  if (request.method === 'POST' && url.pathname.startsWith('/hooks/')) {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      const failure = { ok: false, error: 'invalid_payload' };
      workspace.record('response_url', { raw }, failure);
      reply(400, failure);
      return;
    }
    const { status, response: result } = postToResponseUrl(
      workspace,
      url.pathname.slice('/hooks/'.length),
      body as Record<string, unknown>,
    );
    reply(status, result);
    return;
  }

  reply(404, { ok: false, error: 'not_found' });
}

/** apps.connections.open takes only the app-level token, and answers with a single-use WebSocket URL. */
function openConnection(
  workspace: Workspace,
  socket: SocketModeLink | undefined,
  token: unknown,
): Record<string, unknown> {
  const response =
    token === undefined || token === ''
      ? { ok: false, error: 'not_authed' }
      : token === workspace.identity.botToken
        ? { ok: false, error: 'not_allowed_token_type' }
        : socket === undefined || !socket.accepts(token)
          ? { ok: false, error: 'invalid_auth' }
          : { ok: true, url: socket.issueUrl() };
  workspace.record('apps.connections.open', {}, response);
  return response;
}

function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  return match?.[1];
}

function parseArgs(contentType: string | undefined, raw: string): Record<string, unknown> {
  if (raw === '') return {};
  if (contentType?.startsWith('application/json') === true) {
    try {
      const parsed: unknown = JSON.parse(raw);
      return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
    } catch {
      return {};
    }
  }
  const args: Record<string, unknown> = Object.fromEntries(new URLSearchParams(raw));
  for (const field of JSON_FIELDS) {
    const value = args[field];
    if (typeof value !== 'string') continue;
    try {
      args[field] = JSON.parse(value);
    } catch {
      // Left as a string: the method answers with Slack's error for a malformed argument.
    }
  }
  return args;
}
