/**
 * The page's "Ask Slackbot" box: Faultline's tools as Slackbot sees them, each with its
 * arguments, called as the person chosen in "Acting as" through the fake Slack's Slackbot client
 * (signed, naming the person as Slack identity auth does). No model chooses the tool: the person
 * does, and reads what the tool answered.
 */
import type { FakeSlack, FakeSlackbot } from '@faultline/fake-slack';
import { z } from 'zod';
import { PlaygroundError } from './actions.ts';
import { namedMentions } from './workflows-panel.ts';

export interface ToolForm {
  name: string;
  description: string;
  args: Array<{ name: string; type: string; description: string; required: boolean; choices: string[] }>;
}

export const slackbotBodies = {
  call: z.object({
    person: z.string(),
    tool: z.string().max(100),
    args: z.record(z.string(), z.union([z.string().max(2_000), z.boolean()])).default({}),
  }),
};

type Schema = { type?: string; description?: string; enum?: string[]; default?: unknown };

/** One Slackbot client per person, connected the first time they ask. */
export class SlackbotPanel {
  readonly #fake: FakeSlack;
  readonly #url: string;
  /** People's and channels' names by id: an answer's mentions read as the page shows them. */
  readonly #names: ReadonlyMap<string, string>;
  readonly #clients = new Map<string, Promise<FakeSlackbot>>();
  /** The tools, the same for everyone, read once. */
  #forms: ToolForm[] | undefined;

  constructor(fake: FakeSlack, mcpUrl: string, names: ReadonlyMap<string, string>) {
    this.#fake = fake;
    this.#url = mcpUrl;
    this.#names = names;
  }

  #client(personId: string): Promise<FakeSlackbot> {
    let client = this.#clients.get(personId);
    if (client === undefined) {
      client = this.#fake.slackbot(personId, this.#url);
      client.catch(() => this.#clients.delete(personId));
      this.#clients.set(personId, client);
    }
    return client;
  }

  /** The tools the app offers Slackbot, with the arguments each takes. */
  async tools(personId: string): Promise<ToolForm[]> {
    if (this.#forms) return this.#forms;
    const tools = await (await this.#client(personId)).tools();
    this.#forms = tools.map((tool) => {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
      const required = new Set(tool.inputSchema.required ?? []);
      return {
        name: tool.name,
        description: tool.description ?? '',
        args: Object.entries(properties).map(([name, schema]) => ({
          name,
          type: schema.type ?? 'string',
          description: schema.description ?? '',
          required: required.has(name),
          choices: schema.enum ?? [],
        })),
      };
    });
    return this.#forms;
  }

  /** Calls a tool as the person: blank fields are left out, as a model leaves out what it does not know. */
  async call(personId: string, body: unknown): Promise<{ text: string; isError: boolean }> {
    const { tool, args } = slackbotBodies.call.parse(body);
    const forms = await this.tools(personId);
    const form = forms.find((candidate) => candidate.name === tool);
    if (form === undefined) throw new PlaygroundError(404, 'Faultline has no such tool.');
    const given: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(args)) {
      const arg = form.args.find((candidate) => candidate.name === name);
      if (arg === undefined) throw new PlaygroundError(400, `The tool ${tool} takes no argument ${name}.`);
      if (arg.type === 'boolean') {
        if (value === true || value === 'true') given[name] = true;
      } else if (String(value).trim() !== '') given[name] = String(value).trim();
    }
    const answer = await (await this.#client(personId)).call(tool, given);
    return { ...answer, text: namedMentions(answer.text, this.#names) };
  }

  async close(): Promise<void> {
    const clients = await Promise.allSettled([...this.#clients.values()]);
    await Promise.all(clients.map((c) => (c.status === 'fulfilled' ? c.value.close() : undefined)));
  }
}
