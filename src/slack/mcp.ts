import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { type CustomRoute, isValidSlackRequest } from '@slack/bolt';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { audit } from '../audit.ts';
import { UnauthorizedError } from '../client/errors.ts';
import type { SlackbotTool } from '../commands/command.ts';
import { NotLoggedInError } from '../errors.ts';
import type { Counted, KeyValueStore } from '../store/keyValue.ts';
import { keys } from '../store/keys.ts';
import type { Actor } from '../store/sessions.ts';
import {
  noPersonText,
  notLoggedInToolText,
  rateLimitedText,
  restartingToolText,
  slackbotLoginPrompt,
  stillWorkingText,
  toolText,
} from '../views/slackbot/tools.ts';
import type { SlackAdapter } from './adapter.ts';
import { actorFrom } from './interactions.ts';
import { refuse, signedHeaders } from './receiver.ts';

/** Where Slackbot calls Faultline's tools (manifest.yml, mcp_servers). */
export const mcpPath = '/mcp';

/** The limits of the MCP endpoint; a test makes them smaller. */
export const mcpLimits = {
  /** The largest body read: a tool call is a few hundred bytes. */
  bodyBytes: 64 * 1024,
  /** Tool calls per person per minute. */
  callsPerMinute: 20,
  /** A tool still waiting on the platform after this long answers "still working" and goes on. */
  answerWithinMs: 8_000,
};

/** What the endpoint keeps besides the services: claims and counters, and the secret Slack signs with. */
export interface McpParts {
  store: KeyValueStore;
  signingSecret: string | undefined;
}

/** What Slack identity auth puts in a request's `params._meta.slack`: the person asking. */
interface SlackIdentity {
  user_id?: unknown;
  team_id?: unknown;
  enterprise_id?: unknown;
}

/**
 * The MCP endpoint Slackbot calls, on the bot's port. A request is verified as Slack's are before
 * anything is read or done: signature headers and their five minutes (unread otherwise), a
 * bounded body, its HMAC, and one use of each signature; anything else gets 401. Each request is
 * answered by a server of its own (stateless Streamable HTTP), whose tools act as the person the
 * verified request names.
 */
export function mcpRoutes(adapter: SlackAdapter, tools: SlackbotTool[], parts: McpParts): CustomRoute[] {
  return [
    {
      path: mcpPath,
      method: 'POST',
      handler: (req, res) => {
        answer(adapter, tools, parts, req, res).catch((error: unknown) => {
          adapter.deps.logger.warn({ err: error }, 'could not answer a request from Slackbot');
          if (!res.headersSent) res.writeHead(500).end();
        });
      },
    },
    // Stateless: no stream to open, no session to end (the client is told so, and goes on).
    { path: mcpPath, method: ['GET', 'DELETE'], handler: (_req, res) => res.writeHead(405, { allow: 'POST' }).end() },
  ];
}

async function answer(
  adapter: SlackAdapter,
  tools: SlackbotTool[],
  parts: McpParts,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const now = Date.now();
  if (!signedHeaders(req, now)) return refuse(res);
  const raw = await readBounded(req, mcpLimits.bodyBytes);
  if (raw === undefined) {
    res.writeHead(413, { connection: 'close' });
    res.end(() => res.socket?.destroy());
    return;
  }
  // signedHeaders has checked both are there, and their shape.
  const signature = req.headers['x-slack-signature'] as string;
  const headers = {
    'x-slack-signature': signature,
    'x-slack-request-timestamp': Number(req.headers['x-slack-request-timestamp']),
  };
  const secret = parts.signingSecret ?? '';
  if (!secret || !isValidSlackRequest({ signingSecret: secret, body: raw, headers, nowMilliseconds: now }))
    return refuse(res);
  // A signed request sent again (by anyone who saw it) does nothing.
  if (!(await parts.store.claim(keys.mcpRequest.key(signature), keys.mcpRequest.ttlMs))) return refuse(res);
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }));
    return;
  }
  const server = serverFor(adapter, tools, parts.store, personOf(body));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/** The person the verified request names, or undefined when it names nobody. */
function personOf(body: unknown): Actor | undefined {
  const slack = (body as { params?: { _meta?: { slack?: SlackIdentity } } } | null)?.params?._meta?.slack;
  const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
  const userId = text(slack?.user_id);
  const teamId = text(slack?.team_id);
  if (!userId || !teamId) return undefined;
  const enterprise = text(slack?.enterprise_id);
  return actorFrom({ user_id: userId, team_id: teamId, ...(enterprise ? { enterprise_id: enterprise } : {}) });
}

function serverFor(
  adapter: SlackAdapter,
  tools: SlackbotTool[],
  store: KeyValueStore,
  person: Actor | undefined,
): McpServer {
  const server = new McpServer(
    { name: 'faultline', version: '1.0.0' },
    {
      instructions:
        'Faultline runs failure-injection (chaos) attacks on the platform, with the platform session of the person asking. Halts and freezes act at once. An attack is never started here: request_attack and run_saved_attack send the person a preview in Slack, and only their Start click starts it.',
    },
  );
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: tool.input,
        annotations: { readOnlyHint: tool.readOnly, destructiveHint: !tool.readOnly, openWorldHint: false },
      },
      (args: Record<string, unknown>) => call(adapter, store, tool, args, person),
    );
  }
  return server;
}

const said = (text: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text }],
  ...(isError ? { isError } : {}),
});

/**
 * One tool call: within the person's per-minute limit, as the person, answered within Slackbot's
 * time (the work goes on after "still working"), audited with its arguments and outcome.
 */
async function call(
  adapter: SlackAdapter,
  store: KeyValueStore,
  tool: SlackbotTool,
  args: Record<string, unknown>,
  person: Actor | undefined,
): Promise<CallToolResult> {
  const { deps } = adapter;
  if (!person) return said(noPersonText, true);
  const now = Date.now();
  let counted: Counted;
  try {
    counted = await store.increment(keys.mcpCalls.key(person), keys.mcpCalls.ttlMs, now);
  } catch (error) {
    return said(toolText(await adapter.explain(person, error)), true);
  }
  const actor: Actor = { ...person, userName: await deps.attacks.personName(person.userId).catch(() => person.userId) };
  const record = (outcome: string) =>
    audit(deps.logger, 'slackbot_tool', actor, { tool: tool.name, arguments: args, outcome });
  if (counted.count > mcpLimits.callsPerMinute) {
    record('rate limited');
    const seconds = Math.max(1, Math.ceil((counted.endsAt - now) / 1000));
    return said(rateLimitedText(mcpLimits.callsPerMinute, seconds), true);
  }
  let result: CallToolResult | undefined;
  const work = adapter.track(
    'tool',
    async () => {
      result = await outcome(adapter, tool, args, actor);
      record(result.isError ? 'refused' : 'done');
    },
    async () => {
      result = said(restartingToolText, true);
    },
  );
  const timer = new AbortController();
  const inTime = await Promise.race([
    work.then(() => true),
    delay(mcpLimits.answerWithinMs, false, { signal: timer.signal }).catch(() => true),
  ]);
  timer.abort();
  if (inTime && result) return result;
  record('still working');
  return said(stillWorkingText);
}

/** What the tool did, in words; a failure explained as in Slack, a person not logged in sent Log in by DM. */
async function outcome(
  adapter: SlackAdapter,
  tool: SlackbotTool,
  args: Record<string, unknown>,
  actor: Actor,
): Promise<CallToolResult> {
  const { deps } = adapter;
  try {
    return said(toolText(await tool.run(args, actor, deps)));
  } catch (error) {
    const words = await adapter.explain(actor, error);
    if (!(error instanceof NotLoggedInError || error instanceof UnauthorizedError)) return said(toolText(words), true);
    await deps.slack
      .post(actor.userId, slackbotLoginPrompt(tool.name))
      .catch((dmError: unknown) => deps.logger.warn({ err: dmError }, 'could not send the login entry'));
    return said(notLoggedInToolText, true);
  }
}

/** The body as text, or undefined once it passes `limit` bytes (the rest is not read). */
async function readBounded(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
