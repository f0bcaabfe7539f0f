import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { slackSignature } from './signature.ts';

/** How a request is signed: as Slack does, with another secret, without headers, or five minutes and more ago. */
export type SlackbotSigning = 'valid' | 'bad' | 'missing' | 'stale';

export interface SlackbotOptions {
  /** The app's MCP server, as manifest.yml's mcp_servers names it (e.g. http://127.0.0.1:3000/mcp). */
  url: string;
  signingSecret: string;
  /** The person asking, as Slack identity auth names them in every request. */
  userId: string;
  teamId: string;
  enterpriseId?: string | undefined;
  signing?: SlackbotSigning;
}

/** A request as it was sent, signed: a test sends it again. */
export interface SentRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What a tool answered: its text, and whether it said it failed. */
export interface ToolAnswer {
  text: string;
  isError: boolean;
}

/**
 * Slackbot's MCP client, as Slack runs it for one person: the SDK's client over Streamable HTTP,
 * each request carrying the person in `params._meta.slack` and signed with the app's signing
 * secret like every request Slack sends.
 */
export class FakeSlackbot {
  readonly client = new Client({ name: 'slackbot', version: '1.0.0' });
  readonly sent: SentRequest[] = [];
  readonly #options: SlackbotOptions;

  private constructor(options: SlackbotOptions) {
    this.#options = options;
  }

  /** Connects (MCP's initialize) for the person. */
  static async connect(options: SlackbotOptions): Promise<FakeSlackbot> {
    const slackbot = new FakeSlackbot(options);
    const transport = new StreamableHTTPClientTransport(new URL(options.url), {
      fetch: (input, init) => slackbot.#signed(input, init),
    });
    await slackbot.client.connect(transport);
    return slackbot;
  }

  /** The tools the server offers, with their input schemas. */
  async tools() {
    return (await this.client.listTools()).tools;
  }

  /** Calls a tool as the person, as Slackbot does once a model chose it. */
  async call(name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
    const result = await this.client.callTool({ name, arguments: args });
    const content = (result.content ?? []) as { type: string; text?: string }[];
    return { text: content.map((c) => c.text ?? '').join('\n'), isError: result.isError === true };
  }

  close(): Promise<void> {
    return this.client.close();
  }

  /** Sends a request as Slack would: the person in the message's `_meta`, then signed. */
  async #signed(input: string | URL | Request, init: RequestInit | undefined): Promise<Response> {
    const { signingSecret, userId, teamId, enterpriseId, signing = 'valid' } = this.#options;
    const headers = new Headers(init?.headers);
    let body = typeof init?.body === 'string' ? init.body : '';
    if (body) {
      const message = JSON.parse(body) as { method?: string; params?: { _meta?: Record<string, unknown> } };
      if (message.method) {
        const slack = { user_id: userId, team_id: teamId, ...(enterpriseId ? { enterprise_id: enterpriseId } : {}) };
        message.params = { ...message.params, _meta: { ...message.params?._meta, slack } };
      }
      body = JSON.stringify(message);
    }
    if (signing !== 'missing') {
      const timestamp = Math.floor(Date.now() / 1000) - (signing === 'stale' ? 6 * 60 : 0);
      const secret = signing === 'bad' ? `not-${signingSecret}` : signingSecret;
      headers.set('x-slack-request-timestamp', String(timestamp));
      headers.set('x-slack-signature', slackSignature(secret, timestamp, body));
    }
    const url = String(input instanceof Request ? input.url : input);
    this.sent.push({ url, headers: Object.fromEntries(headers), body });
    return fetch(url, { ...init, headers, ...(body ? { body } : {}) });
  }
}
