import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack, type StepDefinition } from '../src/index.ts';

const SIGNING_SECRET = 'steps-signing-secret';
const BOT_TOKEN = 'xoxb-steps-token';

const count: StepDefinition = {
  title: 'Count',
  description: 'Counts words',
  input_parameters: {
    user: { type: 'slack#/types/user_context', title: 'Person', is_required: true },
    words: { type: 'string', title: 'Words', is_required: false },
  },
  output_parameters: {
    count: { type: 'integer', title: 'How many', is_required: true },
    words: { type: 'array', items: { type: 'string' }, title: 'The words', is_required: false },
  },
};

let fake: FakeSlack;
let app: App;
/** What the step answers: set by each test. */
let answer: (inputs: Record<string, unknown>) => { outputs: Record<string, unknown> } | { error: string };
let delivered: { retryNum: number | undefined; token: string | undefined }[];

beforeEach(async () => {
  fake = await startFakeSlack({ signingSecret: SIGNING_SECRET, botToken: BOT_TOKEN, steps: { count } });
  delivered = [];
  const receiver = new HTTPReceiver({ signingSecret: SIGNING_SECRET, logLevel: LogLevel.ERROR });
  app = new App({ token: BOT_TOKEN, receiver, logLevel: LogLevel.ERROR, clientOptions: { slackApiUrl: fake.apiUrl } });
  app.function('count', async ({ inputs, complete, fail, context, client }) => {
    delivered.push({ retryNum: context.retryNum, token: client.token });
    const result = answer(inputs);
    if ('outputs' in result) await complete({ outputs: result.outputs }).catch(() => undefined);
    else await fail({ error: result.error });
  });
  const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
  fake.setBotUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`);
});

afterEach(async () => {
  await app.stop();
  await fake.stop();
});

describe('custom steps', () => {
  it('delivers function_executed as Slack does, with a workflow token the step completes with', async () => {
    let person: unknown;
    answer = (inputs) => {
      person = inputs['user'];
      const words = String(inputs['words'] ?? '')
        .split(' ')
        .filter(Boolean);
      return { outputs: { count: words.length, words } };
    };
    const execution = await fake.runStep('count', { words: 'halt all chaos' }, { usedBy: 'U0ALICE' });
    await fake.waitFor(() => execution.state !== 'running', 'the step to end');
    expect(execution.state).toBe('completed');
    expect(execution.outputs).toEqual({ count: 3, words: ['halt', 'all', 'chaos'] });
    // The person who used the workflow, as Slack vouches for them: their id and Slack's secret.
    expect(person).toEqual({ id: 'U0ALICE', secret: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(execution.usedBy).toBe('U0ALICE');
    // Bolt answered with the step's own token, as Slack hands it in bot_access_token.
    expect(delivered).toEqual([{ retryNum: undefined, token: expect.stringMatching(/^xwfp-/) }]);
    expect(fake.failures()).toEqual([]);
  });

  it('refuses outputs that are missing, of the wrong type or not declared, and keeps the step running', async () => {
    answer = () => ({ outputs: { count: 'three', extra: true } });
    const execution = await fake.runStep('count', {}, { usedBy: 'U0ALICE' });
    await fake.waitFor(() => execution.completions > 0, 'the completion');
    expect(execution.state).toBe('running');
    const refused = fake.failures().at(-1)!;
    expect(refused).toMatchObject({ method: 'functions.completeSuccess', error: 'parameter_validation_failed' });
    expect((refused.response as { response_metadata: { messages: string[] } }).response_metadata.messages).toEqual([
      '[ERROR] must be of type integer [json-pointer:/outputs/count]',
      '[ERROR] is not a declared parameter [json-pointer:/outputs/extra]',
    ]);
  });

  it('fails a step with its error once, and refuses a second completion', async () => {
    answer = () => ({ error: 'You are not logged in.' });
    const execution = await fake.runStep('count', {}, { usedBy: 'U0ALICE' });
    await fake.waitFor(() => execution.state !== 'running', 'the step to end');
    expect(execution).toMatchObject({ state: 'failed', error: 'You are not logged in.', completions: 1 });
    answer = () => ({ outputs: { count: 0 } });
    await execution.redeliver();
    // The step's token lapsed with it; the bot token would get execution_not_in_running_state.
    await fake.waitFor(() => fake.failures().length > 0, 'the second completion');
    expect(fake.failures().map((call) => [call.method, call.error])).toEqual([
      ['functions.completeSuccess', 'token_expired'],
    ]);
    expect(delivered.map((d) => d.retryNum)).toEqual([undefined, 1]);
    expect(execution).toMatchObject({ state: 'failed', error: 'You are not logged in.', completions: 1 });
  });

  it('refuses to run a step with inputs Workflow Builder would not send', async () => {
    // Nobody used the workflow (a schedule, with no step that asks a person): no user context.
    await expect(fake.runStep('count', { words: 'no person' })).rejects.toThrow('/inputs/user is required');
    // A builder cannot set a user context, neither to a colleague's id nor to an object of their own.
    await expect(fake.runStep('count', { user: 'U0BOSS' }, { usedBy: 'U0ALICE' })).rejects.toThrow(
      '/inputs/user is set by Slack from the person who used the workflow',
    );
    await expect(fake.runStep('count', { user: { id: 'U0BOSS', secret: 'made up' } })).rejects.toThrow(
      '/inputs/user is set by Slack from the person who used the workflow',
    );
    await expect(fake.runStep('count', {}, { usedBy: 'alice' })).rejects.toThrow(
      '/inputs/user must be of type slack#/types/user_context',
    );
    await expect(fake.runStep('nothing', {})).rejects.toThrow('declares no custom step nothing');
  });

  it('runs a step as Slack declares it now: an app configuration still on an older manifest passes a user id as typed', async () => {
    fake.declareSteps({
      count: { ...count, input_parameters: { ...count.input_parameters, user: { type: 'slack#/types/user_id' } } },
    });
    let person: unknown;
    answer = (inputs) => {
      person = inputs['user'];
      return { outputs: { count: 0 } };
    };
    const execution = await fake.runStep('count', { user: 'U0BOSS' }, { usedBy: 'U0ALICE' });
    await fake.waitFor(() => execution.state !== 'running', 'the step to end');
    expect(person).toBe('U0BOSS');
    expect([...fake.steps.keys()]).toEqual(['count']);
  });
});

describe('message metadata', () => {
  it('keeps the metadata of a message, replaces it on chat.update, and refuses a malformed one', async () => {
    const client = app.client;
    const posted = await client.chat.postMessage({
      channel: 'C0GENERAL',
      text: 'card',
      metadata: { event_type: 'faultline_attack', event_payload: { id: 'a1', stage: 'Running' } },
    });
    const message = () => fake.channel('C0GENERAL').messages().at(-1)!;
    expect(message().metadata).toEqual({
      event_type: 'faultline_attack',
      event_payload: { id: 'a1', stage: 'Running' },
    });
    await client.chat.update({
      channel: 'C0GENERAL',
      ts: posted.ts!,
      text: 'card',
      metadata: { event_type: 'faultline_attack', event_payload: { id: 'a1', stage: 'Halted' } },
    });
    expect(message().metadata?.event_payload).toEqual({ id: 'a1', stage: 'Halted' });
    await client.chat.update({ channel: 'C0GENERAL', ts: posted.ts!, text: 'card, no metadata given' });
    expect(message().metadata?.event_payload).toEqual({ id: 'a1', stage: 'Halted' });
    await expect(
      client.chat.postMessage({
        channel: 'C0GENERAL',
        text: 'bad',
        metadata: { event_type: 'faultline.attack', event_payload: {} },
      }),
    ).rejects.toThrow('invalid_metadata_schema');
  });
});
