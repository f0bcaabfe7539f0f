import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeSlack, type FakeSlack } from '@faultline/fake-slack';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPlayground, type Playground } from '../src/server.ts';
import type { MessageState, PersonState } from '../src/view-state.ts';

/**
 * The playground over the fake Slack with a scripted stand-in for the bot, so every surface the
 * page can act on (messages, threads, ephemerals, modals, selects) is set up exactly.
 */

const botToken = 'xoxb-playground-test';
type Delivery = Record<string, unknown>;
type BotAnswer = { status?: number; body?: unknown } | undefined;

let fake: FakeSlack;
let playground: Playground;
let bot: Server;
const deliveries: Delivery[] = [];
let answer: (delivery: Delivery) => Promise<BotAnswer> | BotAnswer = () => undefined;

beforeAll(async () => {
  fake = await startFakeSlack({ signingSecret: 'playground-test-secret', botToken });
  bot = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const payload = form.get('payload');
      const delivery: Delivery = payload !== null ? (JSON.parse(payload) as Delivery) : Object.fromEntries(form);
      deliveries.push(delivery);
      void Promise.resolve(answer(delivery)).then((reply) => {
        const body = reply?.body === undefined ? '' : JSON.stringify(reply.body);
        res.writeHead(reply?.status ?? 200, body === '' ? {} : { 'content-type': 'application/json' });
        res.end(body);
      });
    });
  });
  await new Promise<void>((resolve) => bot.listen(0, '127.0.0.1', () => resolve()));
  fake.setBotUrl(`http://127.0.0.1:${(bot.address() as AddressInfo).port}/slack/events`);
  playground = await startPlayground({ fake });
});

afterAll(async () => {
  await playground?.stop();
  await fake?.stop();
  await new Promise<void>((resolve) => (bot ? bot.close(() => resolve()) : resolve()));
});

afterEach(() => {
  expect(fake.failures()).toEqual([]);
  deliveries.length = 0;
  answer = () => undefined;
});

async function slackApi(method: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(`${fake.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${botToken}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(args),
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (body['ok'] !== true) throw new Error(`${method} failed: ${JSON.stringify(body)}`);
  return body;
}

async function post(
  path: string,
  body: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(new URL(path, playground.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function state(person: string, channel: string): Promise<PersonState> {
  const response = await fetch(new URL(`/api/state?person=${person}&channel=${channel}`, playground.url));
  expect(response.status).toBe(200);
  return (await response.json()) as PersonState;
}

const plain = (text: string) => ({ type: 'plain_text', text });
const mrkdwn = (text: string) => ({ type: 'mrkdwn', text });
const button = (text: string, actionId: string, extra: Record<string, unknown> = {}) => ({
  type: 'button',
  text: plain(text),
  action_id: actionId,
  ...extra,
});
const texts = (messages: MessageState[]) => messages.map((message) => message.text);

function deliveredAction(): Record<string, unknown> | undefined {
  const delivery = deliveries.find((candidate) => candidate['type'] === 'block_actions');
  return (delivery?.['actions'] as Record<string, unknown>[] | undefined)?.[0];
}

describe('what a person sees', () => {
  it('channel messages with their threads, and only this person’s ephemeral messages, in order', async () => {
    const channel = 'C0GENERAL';
    const first = await slackApi('chat.postMessage', { channel, text: 'first' });
    await slackApi('chat.postMessage', { channel, text: 'reply in thread', thread_ts: first['ts'] });
    await slackApi('chat.postEphemeral', {
      channel,
      user: 'U0ALICE',
      text: 'for alice, in the thread',
      thread_ts: first['ts'],
    });
    await slackApi('chat.postEphemeral', { channel, user: 'U0ALICE', text: 'for alice' });
    await slackApi('chat.postMessage', { channel, text: 'second' });
    await slackApi('chat.postMessage', { channel: 'C0GAMEDAY', text: 'elsewhere' });

    const alice = await state('U0ALICE', channel);
    expect(texts(alice.timeline)).toEqual(['first', 'for alice', 'second']);
    expect(alice.timeline.map((message) => message.ephemeral)).toEqual([false, true, false]);
    expect(texts(alice.timeline[0]?.replies ?? [])).toEqual(['reply in thread', 'for alice, in the thread']);

    const bob = await state('U0BOB', channel);
    expect(texts(bob.timeline)).toEqual(['first', 'second']);
    expect(texts(bob.timeline[0]?.replies ?? [])).toEqual(['reply in thread']);
    expect(bob.modal).toBeNull();
    expect(bob.home).toBeNull();
  });

  it('answers 304 to a poll when nothing changed', async () => {
    const url = new URL('/api/state?person=U0CAROL&channel=C0GAMEDAY', playground.url);
    const first = await fetch(url);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const again = await fetch(url, { headers: { 'if-none-match': etag ?? '' } });
    expect(again.status).toBe(304);
    await slackApi('chat.postMessage', { channel: 'C0GAMEDAY', text: 'news' });
    const changed = await fetch(url, { headers: { 'if-none-match': etag ?? '' } });
    expect(changed.status).toBe(200);
  });
});

describe('direct messages', () => {
  it('shows the app’s direct messages to a person as theirs alone, and clicks their buttons as that person', async () => {
    const posted = await slackApi('chat.postMessage', {
      channel: 'U0ALICE',
      text: 'Still watching?',
      blocks: [{ type: 'actions', elements: [button('Still here', 'still_here'), button('Halt', 'halt')] }],
    });
    const ts = String(posted['ts']);
    const alice = await state('U0ALICE', 'dm');
    expect(texts(alice.timeline)).toEqual(['Still watching?']);
    expect(alice.direct).toEqual([ts]);
    // Listed in every place the person looks, so the page can count what is unread.
    expect((await state('U0ALICE', 'C0GENERAL')).direct).toEqual([ts]);
    const bob = await state('U0BOB', 'dm');
    expect(bob.timeline).toEqual([]);
    expect(bob.direct).toEqual([]);

    const surface = { kind: 'message', channel: 'dm', ts };
    expect((await post('/api/click', { person: 'U0ALICE', surface, index: 0, actionId: 'still_here' })).status).toBe(
      200,
    );
    expect(deliveredAction()).toMatchObject({ action_id: 'still_here' });
    expect(deliveries[0]?.['user']).toMatchObject({ id: 'U0ALICE' });
    // Bob's direct messages hold no such message.
    expect((await post('/api/click', { person: 'U0BOB', surface, index: 0, actionId: 'still_here' })).status).toBe(409);
  });
});

describe('buttons and selects on messages', () => {
  async function postCard(buttons: Record<string, unknown>[]): Promise<string> {
    const posted = await slackApi('chat.postMessage', {
      channel: 'C0GAMEDAY',
      text: 'card',
      blocks: [
        { type: 'section', text: mrkdwn('*An attack*') },
        { type: 'actions', elements: buttons },
      ],
    });
    return String(posted['ts']);
  }

  it('clicks the button at an index, with its action id, as the person', async () => {
    const ts = await postCard([
      button('Halt', 'halt', { style: 'danger' }),
      button('Details', 'details', { value: 'g-1' }),
    ]);
    const result = await post('/api/click', {
      person: 'U0BOB',
      surface: { kind: 'message', channel: 'C0GAMEDAY', ts },
      index: 1,
      actionId: 'details',
    });
    expect(result.status).toBe(200);
    expect(deliveredAction()).toMatchObject({ action_id: 'details', value: 'g-1' });
    expect(deliveries[0]?.['user']).toMatchObject({ id: 'U0BOB', name: 'bob' });
  });

  it('sends a button with a confirm dialog only once the person confirmed', async () => {
    const confirm = { title: plain('Halt?'), text: plain('Really?'), confirm: plain('Halt'), deny: plain('Keep') };
    const ts = await postCard([button('Halt', 'halt', { style: 'danger', confirm })]);
    const surface = { kind: 'message', channel: 'C0GAMEDAY', ts };
    const unconfirmed = await post('/api/click', { person: 'U0BOB', surface, index: 0, actionId: 'halt' });
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.body['error']).toContain('confirm');
    expect(deliveries).toEqual([]);
    const confirmed = await post('/api/click', {
      person: 'U0BOB',
      surface,
      index: 0,
      actionId: 'halt',
      confirmed: true,
    });
    expect(confirmed.status).toBe(200);
    expect(deliveredAction()).toMatchObject({ action_id: 'halt' });
  });

  it('refuses a button that is gone, and presses the very one of several with the same text', async () => {
    const ts = await postCard([button('Halt', 'halt_1'), button('Halt', 'halt_2')]);
    const surface = { kind: 'message', channel: 'C0GAMEDAY', ts };
    expect((await post('/api/click', { person: 'U0BOB', surface, index: 1, actionId: 'halt_1' })).status).toBe(409);
    expect(
      (
        await post('/api/click', {
          person: 'U0BOB',
          surface: { ...surface, ts: '1.000001' },
          index: 0,
          actionId: 'halt_1',
        })
      ).status,
    ).toBe(409);
    expect(deliveries).toEqual([]);
    expect((await post('/api/click', { person: 'U0BOB', surface, index: 1, actionId: 'halt_2' })).status).toBe(200);
    expect(deliveredAction()).toMatchObject({ action_id: 'halt_2' });
  });

  it('clicks a button in a thread reply and in an ephemeral message', async () => {
    const parent = await postCard([]);
    const reply = await slackApi('chat.postMessage', {
      channel: 'C0GAMEDAY',
      thread_ts: parent,
      text: 'reply',
      blocks: [{ type: 'actions', elements: [button('Undo', 'undo')] }],
    });
    const inThread = await post('/api/click', {
      person: 'U0CAROL',
      surface: { kind: 'message', channel: 'C0GAMEDAY', ts: reply['ts'], threadTs: parent },
      index: 0,
      actionId: 'undo',
    });
    expect(inThread.status).toBe(200);
    expect(deliveredAction()).toMatchObject({ action_id: 'undo' });

    deliveries.length = 0;
    await slackApi('chat.postEphemeral', {
      channel: 'C0GAMEDAY',
      user: 'U0CAROL',
      text: 'only carol',
      blocks: [{ type: 'actions', elements: [button('Log in', 'login_open')] }],
    });
    const ephemeral = (await state('U0CAROL', 'C0GAMEDAY')).timeline.find((message) => message.ephemeral);
    const clicked = await post('/api/click', {
      person: 'U0CAROL',
      surface: { kind: 'message', channel: 'C0GAMEDAY', ts: ephemeral?.ts },
      index: 0,
      actionId: 'login_open',
    });
    expect(clicked.status).toBe(200);
    expect(deliveredAction()).toMatchObject({ action_id: 'login_open' });
    expect(deliveries[0]?.['container']).toMatchObject({ is_ephemeral: true });
  });

  it('picks an option of a select in an actions block by its placeholder', async () => {
    const posted = await slackApi('chat.postMessage', {
      channel: 'C0GAMEDAY',
      text: 'pick',
      blocks: [
        {
          type: 'actions',
          elements: [
            {
              type: 'static_select',
              action_id: 'stage',
              placeholder: plain('Pick a stage'),
              options: [
                { text: plain('Running'), value: 'run' },
                { text: plain('Halted'), value: 'halt' },
              ],
            },
          ],
        },
      ],
    });
    const result = await post('/api/choose', {
      person: 'U0ALICE',
      surface: { kind: 'message', channel: 'C0GAMEDAY', ts: posted['ts'] },
      label: 'Pick a stage',
      option: 'Halted',
    });
    expect(result.status).toBe(200);
    expect(deliveredAction()).toMatchObject({ action_id: 'stage', selected_option: { value: 'halt' } });
  });
});

describe('modals', () => {
  const firstView = {
    type: 'modal',
    callback_id: 'form',
    title: plain('Start'),
    submit: plain('Next'),
    close: plain('Back'),
    blocks: [
      {
        type: 'input',
        block_id: 'name',
        label: plain('Name'),
        element: { type: 'plain_text_input', action_id: 'name' },
      },
      {
        type: 'input',
        block_id: 'team',
        label: plain('Team'),
        element: { type: 'external_select', action_id: 'team', min_query_length: 0 },
      },
      {
        type: 'input',
        block_id: 'kind',
        label: plain('Kind'),
        element: {
          type: 'static_select',
          action_id: 'kind',
          options: [
            { text: plain('CPU'), value: 'cpu' },
            { text: plain('Memory'), value: 'memory' },
          ],
        },
      },
      {
        type: 'input',
        block_id: 'extras',
        label: plain('Extras'),
        optional: true,
        element: {
          type: 'checkboxes',
          action_id: 'extras',
          options: [
            { text: plain('Notify'), value: 'notify' },
            { text: plain('Dry run'), value: 'dry' },
          ],
        },
      },
      { type: 'actions', elements: [button('Help', 'help')] },
    ],
  };
  const doneView = {
    type: 'modal',
    callback_id: 'form',
    title: plain('Done'),
    close: plain('Finish'),
    notify_on_close: true,
    blocks: [{ type: 'section', text: mrkdwn('All set.') }],
  };
  const teams = [
    { text: plain('Platform'), value: 't1' },
    { text: plain('Payments'), value: 't2' },
  ];

  function scriptBot(): void {
    answer = async (delivery) => {
      if (delivery['command'] !== undefined) {
        await slackApi('views.open', { trigger_id: delivery['trigger_id'], view: firstView });
        return undefined;
      }
      if (delivery['type'] === 'block_suggestion') {
        const query = String(delivery['value']).toLowerCase();
        return { body: { options: teams.filter((team) => team.text.text.toLowerCase().includes(query)) } };
      }
      if (delivery['type'] === 'view_submission') {
        const values = (delivery['view'] as { state: { values: Record<string, Record<string, { value?: string }>> } })
          .state.values;
        return values['name']?.['name']?.value === 'bad'
          ? { body: { response_action: 'errors', errors: { name: 'Not that name' } } }
          : { body: { response_action: 'update', view: doneView } };
      }
      return undefined;
    };
  }

  it('shows the modal with its own button labels, fills it, and follows the app’s answers', async () => {
    scriptBot();
    expect(
      (await post('/api/command', { person: 'U0ALICE', channel: 'C0GENERAL', text: '/chaos attack' })).status,
    ).toBe(200);
    expect(deliveries[0]).toMatchObject({
      command: '/chaos',
      text: 'attack',
      user_id: 'U0ALICE',
      channel_id: 'C0GENERAL',
    });
    const opened = (await state('U0ALICE', 'C0GENERAL')).modal;
    expect(opened).toMatchObject({ title: 'Start', submit: 'Next', close: 'Back' });
    const viewId = opened?.viewId;

    const search = await post('/api/modal/search', { person: 'U0ALICE', viewId, label: 'Team', query: 'pay' });
    expect(search.body['options']).toEqual([{ text: 'Payments', value: 't2' }]);
    for (const [label, option] of [
      ['Team', 'Payments'],
      ['Kind', 'Memory'],
      ['Extras', 'Notify'],
      ['Extras', 'Dry run'],
      ['Extras', 'Notify'],
    ]) {
      expect(
        (await post('/api/choose', { person: 'U0ALICE', surface: { kind: 'modal', viewId }, label, option })).status,
      ).toBe(200);
    }
    const chosen = (await state('U0ALICE', 'C0GENERAL')).modal?.values;
    expect(chosen?.['team']?.['team']).toMatchObject({ selected_option: { value: 't2' } });
    expect(chosen?.['kind']?.['kind']).toMatchObject({ selected_option: { value: 'memory' } });
    expect(chosen?.['extras']?.['extras']).toMatchObject({ selected_options: [{ value: 'dry' }] });

    const refused = await post('/api/modal/submit', {
      person: 'U0ALICE',
      viewId,
      fields: [{ blockId: 'name', actionId: 'name', value: 'bad' }],
    });
    expect(refused.status).toBe(200);
    const withError = (await state('U0ALICE', 'C0GENERAL')).modal;
    expect(withError).toMatchObject({ viewId, title: 'Start', errors: { Name: 'Not that name' } });

    await post('/api/modal/submit', {
      person: 'U0ALICE',
      viewId,
      fields: [{ blockId: 'name', actionId: 'name', value: 'good' }],
    });
    const done = (await state('U0ALICE', 'C0GENERAL')).modal;
    expect(done).toMatchObject({ viewId, title: 'Done', submit: null, close: 'Finish', errors: {} });

    expect((await post('/api/modal/close', { person: 'U0ALICE', viewId })).status).toBe(200);
    expect((await state('U0ALICE', 'C0GENERAL')).modal).toBeNull();
    expect(deliveries.at(-1)).toMatchObject({ type: 'view_closed' });
  });

  it('keeps a half-filled modal open when required fields are empty, and clicks buttons inside it', async () => {
    scriptBot();
    await post('/api/command', { person: 'U0BOB', channel: 'C0GENERAL', text: '/chaos attack' });
    const viewId = (await state('U0BOB', 'C0GENERAL')).modal?.viewId;
    expect(
      (
        await post('/api/modal/fill', {
          person: 'U0BOB',
          viewId,
          fields: [{ blockId: 'name', actionId: 'name', value: 'x' }],
        })
      ).status,
    ).toBe(200);
    expect((await state('U0BOB', 'C0GENERAL')).modal?.values['name']?.['name']).toMatchObject({ value: 'x' });

    const incomplete = await post('/api/modal/submit', { person: 'U0BOB', viewId });
    expect(incomplete.status).toBe(400);
    expect(incomplete.body['error']).toContain('"Team", "Kind"');
    expect(deliveries.filter((delivery) => delivery['type'] === 'view_submission')).toEqual([]);

    expect(
      (await post('/api/click', { person: 'U0BOB', surface: { kind: 'modal', viewId }, index: 0, actionId: 'help' }))
        .status,
    ).toBe(200);
    expect(deliveredAction()).toMatchObject({ action_id: 'help' });
    expect((await post('/api/modal/close', { person: 'U0BOB', viewId: 'V0GONE' })).status).toBe(409);
    await post('/api/modal/close', { person: 'U0BOB', viewId });
  });

  it('sends what was typed in a modal with a click in it, as Slack does, and keeps it there', async () => {
    scriptBot();
    await post('/api/command', { person: 'U0CAROL', channel: 'C0GENERAL', text: '/chaos attack' });
    const viewId = (await state('U0CAROL', 'C0GENERAL')).modal?.viewId;
    const clicked = await post('/api/click', {
      person: 'U0CAROL',
      surface: { kind: 'modal', viewId },
      index: 0,
      actionId: 'help',
      fields: [{ blockId: 'name', actionId: 'name', value: 'typed, not submitted' }],
    });
    expect(clicked.status).toBe(200);
    const delivery = deliveries.find((candidate) => candidate['type'] === 'block_actions') as
      | { view?: { state?: { values?: Record<string, Record<string, { value?: string }>> } } }
      | undefined;
    expect(delivery?.view?.state?.values?.['name']?.['name']?.value).toBe('typed, not submitted');
    expect((await state('U0CAROL', 'C0GENERAL')).modal?.values['name']?.['name']).toMatchObject({
      value: 'typed, not submitted',
    });
    await post('/api/modal/close', { person: 'U0CAROL', viewId });
  });

  it('says so when the app does not answer as Slack expects', async () => {
    answer = () => ({ status: 500 });
    const result = await post('/api/command', { person: 'U0CAROL', channel: 'C0GENERAL', text: '/chaos help' });
    expect(result).toEqual({ status: 502, body: { error: 'The app answered with HTTP 500; its log says why.' } });
  });
});

describe('the page and its guards', () => {
  it('serves the page and its modules with a strict content security policy', async () => {
    const page = await fetch(playground.url);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="/app.js">');
    for (const path of ['/app.js', '/blocks.js', '/mrkdwn.js']) {
      const module = await fetch(new URL(path, playground.url));
      expect(module.headers.get('content-type')).toContain('text/javascript');
    }
    const directory = (await (await fetch(new URL('/api/directory', playground.url))).json()) as Record<
      string,
      unknown
    >;
    expect(directory).toMatchObject({
      command: '/chaos',
      people: [
        { id: 'U0ALICE', name: 'alice' },
        { id: 'U0BOB', name: 'bob' },
        { id: 'U0CAROL', name: 'carol' },
      ],
      channels: [
        { id: 'C0GENERAL', name: 'general' },
        { id: 'C0GAMEDAY', name: 'gameday' },
      ],
    });
  });

  it('answers only under its own host name, to JSON from its own origin', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        new URL('/api/directory', playground.url),
        { headers: { host: 'attacker.example:80' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);

    const asForm = await fetch(new URL('/api/command', playground.url), {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ person: 'U0ALICE', channel: 'C0GENERAL', text: '/chaos help' }),
    });
    expect(asForm.status).toBe(415);
    const crossSite = await fetch(new URL('/api/command', playground.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://attacker.example' },
      body: JSON.stringify({ person: 'U0ALICE', channel: 'C0GENERAL', text: '/chaos help' }),
    });
    expect(crossSite.status).toBe(403);
    expect(deliveries).toEqual([]);
  });

  it('refuses unknown people, channels, commands and malformed requests in words', async () => {
    expect(await post('/api/command', { person: 'U0MALLORY', channel: 'C0GENERAL', text: '/chaos help' })).toEqual({
      status: 404,
      body: { error: 'Nobody by that id is in the playground.' },
    });
    expect((await post('/api/command', { person: 'U0ALICE', channel: 'C0SECRET', text: '/chaos help' })).status).toBe(
      404,
    );
    expect(await post('/api/command', { person: 'U0ALICE', channel: 'C0GENERAL', text: 'hello' })).toEqual({
      status: 400,
      body: { error: 'Only /chaos commands reach the app here; try /chaos help.' },
    });
    expect(await post('/api/click', { person: 'U0ALICE' })).toEqual({
      status: 400,
      body: { error: 'The request is not one the page sends.' },
    });
    expect((await fetch(new URL('/api/nothing', playground.url))).status).toBe(404);
    expect(deliveries).toEqual([]);
  });

  it('refuses a file, a shortcut and a login page it does not have, in words', async () => {
    const file = await fetch(new URL('/api/file?id=F0NOTHING', playground.url));
    expect([file.status, await file.json()]).toEqual([404, { error: 'No such file in the playground.' }]);
    const message = await slackApi('chat.postMessage', { channel: 'C0GENERAL', text: 'deploy finished' });
    expect(
      await post('/api/shortcut', {
        person: 'U0ALICE',
        channel: 'C0GENERAL',
        ts: message['ts'],
        callbackId: 'file_ticket',
      }),
    ).toEqual({ status: 404, body: { error: 'The app has no such shortcut.' } });
    expect((await fetch(new URL('/login/some-token', playground.url))).status).toBe(404);
    expect(deliveries).toEqual([]);
  });

  it('answers the address Slack’s web client opens a workspace at with the page', async () => {
    const opened = await fetch(new URL('/client/T0FAULTLN', playground.url), { redirect: 'manual' });
    expect(opened.status).toBe(302);
    expect(opened.headers.get('location')).toBe('/');
    // Only a workspace's address: nothing else under /client is the page.
    expect((await fetch(new URL('/client/T0FAULTLN/C0GENERAL', playground.url))).status).toBe(404);
  });

  it('passes the login page on to the bot once told where it is, saying whose browser asked', async () => {
    const seen: Array<{ url: string | undefined; forwardedFor: unknown; body: string }> = [];
    const loginPage = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({
          url: req.url,
          forwardedFor: req.headers['x-forwarded-for'],
          body: Buffer.concat(chunks).toString(),
        });
        res.writeHead(303, { location: '/login/next', 'set-cookie': 'login=1; HttpOnly' });
        res.end();
      });
    });
    await new Promise<void>((resolve) => loginPage.listen(0, '127.0.0.1', () => resolve()));
    try {
      playground.routeLoginPageTo(`http://127.0.0.1:${(loginPage.address() as AddressInfo).port}`);
      const answer = await fetch(new URL('/login/one-time?x=1', playground.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'email=a%40b.test',
        redirect: 'manual',
      });
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toBe('/login/next');
      expect(answer.headers.get('set-cookie')).toBe('login=1; HttpOnly');
      expect(seen).toEqual([{ url: '/login/one-time?x=1', forwardedFor: '127.0.0.1', body: 'email=a%40b.test' }]);
    } finally {
      await new Promise<void>((resolve) => loginPage.close(() => resolve()));
    }
  });
});
