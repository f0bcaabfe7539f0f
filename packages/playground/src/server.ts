/**
 * The playground: a web page that stands in for the Slack client, over the fake Slack's person
 * drivers. The page reads what a person sees (GET /api/state) and acts as that person (POST
 * /api/...); the bot cannot tell it from the test drivers, because it is the same fake.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { FakeSlack, SlackPerson } from '@faultline/fake-slack';
import { z } from 'zod';
import {
  chooseOption,
  clickButton,
  closeModal,
  currentModal,
  fieldValue,
  fillFields,
  openHome,
  PlaygroundError,
  runCommand,
  runShortcut,
  searchOptions,
  submitModal,
  surfaceRef,
  type SurfaceRef,
} from './actions.ts';
import {
  PLAYGROUND_CHANNELS,
  PLAYGROUND_PEOPLE,
  type LoginHints,
  type PlaygroundChannel,
  type PlaygroundPerson,
} from './directory.ts';
import { SimulatorPanel, type SimulatorControl } from './simulator-panel.ts';
import { runStep, stepForms, stepRuns } from './workflows-panel.ts';
import { SlackbotPanel } from './slackbot-panel.ts';
import { ModalLabelBook, personState } from './view-state.ts';

export interface PlaygroundOptions {
  fake: FakeSlack;
  /** Default 127.0.0.1: the page acts as anyone in the workspace, so it stays on this machine. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  people?: readonly PlaygroundPerson[];
  channels?: readonly PlaygroundChannel[];
  /** The slash command the app answers to; default `/chaos`. */
  command?: string;
  /** Platform logins to suggest on the page. */
  hints?: LoginHints;
  logger?: PlaygroundLogger;
  /** The simulator's control surface, for the page's Simulator panel; without it the panel is not shown. */
  simulator?: SimulatorControl;
  /** The app's message shortcuts, listed in every message's menu as Slack lists them. */
  shortcuts?: readonly { name: string; callbackId: string }[];
}

/** What the page logs: refused and failed requests (the bot's pino logger fits). */
export interface PlaygroundLogger {
  warn(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

export interface Playground {
  /** The page, e.g. `http://127.0.0.1:3100/`. */
  readonly url: string;
  readonly port: number;
  /**
   * Passes `/login/…` on to the bot at `botUrl` (`http://127.0.0.1:<port>`), so the bot's secure
   * login page is reached at the page's own address, as a proxy in front of the bot would.
   */
  routeLoginPageTo(botUrl: string): void;
  /** Turns on the "Ask Slackbot" box, calling the app's MCP server at `mcpUrl` as Slackbot would. */
  askSlackbotAt(mcpUrl: string): void;
  stop(): Promise<void>;
}

/** Where Slack's web client opens a workspace (`https://app.slack.com/client/T…`), as the page answers it. */
const CLIENT_PATH = /^\/client\/[A-Z0-9]+\/?$/;

/** The place the page names a person's direct messages with the app by. */
const DIRECT = 'dm';

const STATIC_FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/blocks.js': { file: 'blocks.js', type: 'text/javascript; charset=utf-8' },
  '/mrkdwn.js': { file: 'mrkdwn.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Request bodies are small JSON; anything bigger is not from the page. */
const MAX_BODY_BYTES = 64 * 1024;

const personField = { person: z.string() };
const bodies = {
  command: z.object({ ...personField, channel: z.string(), text: z.string().max(4_000) }),
  click: z.object({
    ...personField,
    surface: surfaceRef,
    index: z.number().int().nonnegative(),
    actionId: z.string(),
    confirmed: z.boolean().default(false),
    fields: z.array(fieldValue).max(100).default([]),
  }),
  choose: z.object({
    ...personField,
    surface: surfaceRef,
    label: z.string(),
    option: z.string(),
    remove: z.boolean().default(false),
    fields: z.array(fieldValue).max(100).default([]),
  }),
  search: z.object({ ...personField, viewId: z.string(), label: z.string(), query: z.string().max(200) }),
  fill: z.object({ ...personField, viewId: z.string(), fields: z.array(fieldValue).max(100) }),
  submit: z.object({ ...personField, viewId: z.string(), fields: z.array(fieldValue).max(100).default([]) }),
  close: z.object({ ...personField, viewId: z.string() }),
  shortcut: z.object({ ...personField, channel: z.string(), ts: z.string(), callbackId: z.string() }),
  home: z.object(personField),
};

export async function startPlayground(options: PlaygroundOptions): Promise<Playground> {
  const { fake } = options;
  const host = options.host ?? '127.0.0.1';
  const command = options.command ?? '/chaos';
  const channels = options.channels ?? PLAYGROUND_CHANNELS;
  const people = new Map(
    (options.people ?? PLAYGROUND_PEOPLE).map((profile) => [profile.id, fake.user(profile.id, { name: profile.name })]),
  );
  const labels = new ModalLabelBook(fake);
  const logger = options.logger;
  const publicDir = new URL('./public/', import.meta.url);
  const files = new Map(
    await Promise.all(
      Object.entries(STATIC_FILES).map(
        async ([path, { file, type }]) => [path, { type, body: await readFile(new URL(file, publicDir)) }] as const,
      ),
    ),
  );
  const simulator = options.simulator === undefined ? undefined : new SimulatorPanel(options.simulator);
  const directory = {
    command,
    people: [...people.values()].map(({ id, name }) => ({ id, name })),
    channels,
    hints: options.hints ?? null,
    simulator: simulator !== undefined,
    shortcuts: options.shortcuts ?? [],
    steps: stepForms(fake),
  };
  const mentionNames = new Map([...directory.people, ...channels].map(({ id, name }) => [id, name]));
  let slackbot: SlackbotPanel | undefined;
  function slackbotPanel(): SlackbotPanel {
    if (slackbot === undefined) throw new PlaygroundError(404, 'This playground has no Slackbot to ask.');
    return slackbot;
  }

  function simulatorPanel(): SimulatorPanel {
    if (simulator === undefined) throw new PlaygroundError(404, 'This playground has no simulator to control.');
    return simulator;
  }

  function person(id: string): SlackPerson {
    const found = people.get(id);
    if (found === undefined) throw new PlaygroundError(404, 'Nobody by that id is in the playground.');
    return found;
  }

  /** A message in `dm` is one of the app's direct messages to the person acting, in their conversation with it. */
  function directSurface(who: SlackPerson, surface: SurfaceRef): SurfaceRef {
    return surface.kind === 'message' && surface.channel === DIRECT ? { ...surface, channel: who.id } : surface;
  }

  function channel(id: string): string {
    if (!channels.some((candidate) => candidate.id === id))
      throw new PlaygroundError(404, 'No such channel in the playground.');
    return id;
  }

  /** The command line as typed in the composer, without the command name. */
  function commandText(typed: string): string {
    const trimmed = typed.trim();
    if (trimmed !== command && !trimmed.startsWith(`${command} `)) {
      throw new PlaygroundError(400, `Only ${command} commands reach the app here; try ${command} help.`);
    }
    return trimmed.slice(command.length).trim();
  }

  const actions: Record<string, (body: unknown) => Promise<unknown>> = {
    async '/api/command'(body) {
      const input = bodies.command.parse(body);
      await runCommand(person(input.person), channel(input.channel), commandText(input.text));
      return {};
    },
    async '/api/click'(body) {
      const input = bodies.click.parse(body);
      const who = person(input.person);
      // What the person typed into a modal goes with a click in it, as in Slack's block_actions.
      if (input.surface.kind === 'modal' && input.fields.length)
        fillFields(currentModal(who, input.surface.viewId), input.fields);
      await clickButton(who, directSurface(who, input.surface), input.index, input.actionId, input.confirmed);
      return {};
    },
    async '/api/choose'(body) {
      const input = bodies.choose.parse(body);
      const who = person(input.person);
      await chooseOption(who, directSurface(who, input.surface), input.label, input.option, input.remove, input.fields);
      return {};
    },
    async '/api/modal/search'(body) {
      const input = bodies.search.parse(body);
      return { options: await searchOptions(person(input.person), input.viewId, input.label, input.query) };
    },
    async '/api/modal/fill'(body) {
      const input = bodies.fill.parse(body);
      fillFields(currentModal(person(input.person), input.viewId), input.fields);
      return {};
    },
    async '/api/modal/submit'(body) {
      const input = bodies.submit.parse(body);
      await submitModal(person(input.person), input.viewId, input.fields, labels);
      return {};
    },
    async '/api/modal/close'(body) {
      const input = bodies.close.parse(body);
      await closeModal(person(input.person), input.viewId);
      return {};
    },
    async '/api/simulator/monitor'(body) {
      await simulatorPanel().setMonitor(body);
      return simulatorPanel().view();
    },
    async '/api/simulator/alert'(body) {
      await simulatorPanel().setAlert(body);
      return simulatorPanel().view();
    },
    async '/api/simulator/target'(body) {
      await simulatorPanel().setTarget(body);
      return simulatorPanel().view();
    },
    async '/api/workflows/run'(body) {
      const { person: who } = bodies.home.parse(body);
      return runStep(fake, person(who).id, body);
    },
    async '/api/slackbot/call'(body) {
      const { person: who } = bodies.home.parse(body);
      return slackbotPanel().call(person(who).id, body);
    },
    async '/api/shortcut'(body) {
      const input = bodies.shortcut.parse(body);
      if (!directory.shortcuts.some((shortcut) => shortcut.callbackId === input.callbackId))
        throw new PlaygroundError(404, 'The app has no such shortcut.');
      await runShortcut(person(input.person), input.callbackId, channel(input.channel), input.ts);
      return {};
    },
    async '/api/home/open'(body) {
      const input = bodies.home.parse(body);
      await openHome(person(input.person));
      return {};
    },
  };

  /** The Host values the page is served under; filled in once the port is known. */
  const ownHosts = new Set<string>();
  const isOwnHost = (hostHeader: string | undefined) =>
    hostHeader !== undefined && ownHosts.has(hostHeader.toLowerCase());

  let loginPageAt: URL | undefined;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://playground.invalid');
    // A page on another site (or a rebound DNS name) must not act as anyone here.
    if (!isOwnHost(request.headers.host)) throw new PlaygroundError(403, 'Open the playground at its own address.');
    if (loginPageAt !== undefined && url.pathname.startsWith('/login/'))
      return proxy(request, response, new URL(url.pathname + url.search, loginPageAt));

    if (request.method === 'GET') {
      const file = files.get(url.pathname);
      if (file !== undefined) return send(response, 200, file.body, file.type);
      // Slack's web client opens a workspace at /client/<team id>: here, the page, back where the person was.
      if (CLIENT_PATH.test(url.pathname))
        return send(response, 302, '', 'text/plain; charset=utf-8', { location: '/' });
      if (url.pathname === '/api/directory') return sendJson(request, response, 200, directory);
      if (url.pathname === '/api/simulator') return sendJson(request, response, 200, await simulatorPanel().view());
      if (url.pathname === '/api/workflows')
        return sendJson(request, response, 200, { runs: stepRuns(fake, mentionNames) });
      if (url.pathname === '/api/slackbot/tools') {
        const who = person(url.searchParams.get('person') ?? '');
        return sendJson(request, response, 200, { tools: await slackbotPanel().tools(who.id) });
      }
      if (url.pathname === '/api/state') {
        const who = person(url.searchParams.get('person') ?? '');
        // `dm`: the person's direct messages with the app, the conversation Slack opens on their user id.
        const where = url.searchParams.get('channel') ?? '';
        const state = personState(who, where === DIRECT ? who.id : channel(where), labels, fake.files());
        return sendJson(request, response, 200, state);
      }
      if (url.pathname === '/api/file') {
        // Files the app shared in one of the page's channels, as anyone in the workspace opens them.
        const file = fake
          .files()
          .find((candidate) => candidate.id === url.searchParams.get('id') && candidate.channel !== undefined);
        if (file === undefined || !channels.some((candidate) => candidate.id === file.channel))
          throw new PlaygroundError(404, 'No such file in the playground.');
        return sendJson(request, response, 200, { name: file.filename, title: file.title, text: file.text });
      }
      throw new PlaygroundError(404, 'Not found.');
    }

    const action = actions[url.pathname];
    if (request.method !== 'POST' || action === undefined) throw new PlaygroundError(404, 'Not found.');
    // JSON only: a cross-site form cannot send it without a preflight this server never answers.
    if (!(request.headers['content-type'] ?? '').startsWith('application/json'))
      throw new PlaygroundError(415, 'Send JSON.');
    const origin = request.headers.origin;
    if (origin !== undefined && !isOwnHost(URL.canParse(origin) ? new URL(origin).host : undefined)) {
      throw new PlaygroundError(403, 'Open the playground at its own address.');
    }
    return sendJson(request, response, 200, await action(await readJson(request)));
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const [status, message] = describeFailure(error);
      if (status >= 500) logger?.warn({ err: error, path: request.url }, 'playground request failed');
      else logger?.debug({ path: request.url, status, reason: message }, 'playground request refused');
      if (!response.headersSent) sendJson(request, response, status, { error: message });
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  for (const name of [urlHost, ...(isLoopbackHost(host) ? ['127.0.0.1', 'localhost', '[::1]'] : [])])
    ownHosts.add(`${name}:${port}`.toLowerCase());

  return {
    url: `http://${urlHost}:${port}/`,
    port,
    routeLoginPageTo(botUrl) {
      loginPageAt = new URL(botUrl);
    },
    askSlackbotAt(mcpUrl) {
      slackbot = new SlackbotPanel(fake, mcpUrl, mentionNames);
    },
    async stop() {
      await slackbot?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/**
 * Forwards a request and its answer as they are, saying whose browser asked in X-Forwarded-For,
 * as a proxy on the private network does.
 */
function proxy(request: IncomingMessage, response: ServerResponse, target: URL): Promise<void> {
  return new Promise((resolve, reject) => {
    const forwarded = httpRequest(
      target,
      {
        method: request.method,
        headers: {
          ...request.headers,
          host: target.host,
          'x-forwarded-for': request.socket.remoteAddress ?? '',
        },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response).on('finish', resolve).on('error', reject);
      },
    );
    forwarded.on('error', () => reject(new PlaygroundError(502, 'The app is not answering.')));
    request.pipe(forwarded);
  });
}

/** The status and the words the page shows; driver errors say what a person did wrong, nothing secret. */
function describeFailure(error: unknown): [number, string] {
  if (error instanceof PlaygroundError) return [error.status, error.message];
  if (error instanceof z.ZodError) return [400, 'The request is not one the page sends.'];
  if (error instanceof SyntaxError) return [400, 'The request is not JSON.'];
  // fetch() failing to reach the bot's request URL.
  if (error instanceof TypeError && error.message === 'fetch failed') return [502, 'The app is not answering.'];
  if (error instanceof Error) return [400, error.message];
  return [500, 'Something went wrong in the playground.'];
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new PlaygroundError(413, 'The request is too large.');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function send(
  response: ServerResponse,
  status: number,
  body: Buffer | string,
  type: string,
  extra: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...SECURITY_HEADERS, ...extra });
  response.end(body);
}

/** JSON with an ETag, so the page's frequent polls cost a 304 when nothing changed. */
function sendJson(request: IncomingMessage, response: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
  if (status === 200 && request.method === 'GET' && request.headers['if-none-match'] === etag) {
    response.writeHead(304, { etag, 'cache-control': 'no-store', ...SECURITY_HEADERS });
    response.end();
    return;
  }
  send(response, status, body, 'application/json; charset=utf-8', { etag });
}

/** Whether the page listens on this machine only, so its other loopback names reach it too. */
function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}
