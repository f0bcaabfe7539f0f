import type { KnownBlock, ModalView } from '@slack/types';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CHANNEL, type FakeSlack, type SlackPerson } from '../src/index.ts';
import { BOT_TOKEN, startFakeSlackWithApp, type MinimalApp } from './minimal-app.ts';

let fake: FakeSlack;
let bot: MinimalApp;
let alice: SlackPerson;

beforeEach(async () => {
  ({ fake, bot } = await startFakeSlackWithApp());
  alice = fake.user('U0ALICE');
});

// Blocks are built loosely on purpose: several break Slack's rules and would not type-check as KnownBlock.
const plain = (text: string) => ({ type: 'plain_text' as const, text });
const section = (text: string, extra: Record<string, unknown> = {}) =>
  ({ type: 'section', text: { type: 'mrkdwn', text }, ...extra }) as KnownBlock;
const sections = (count: number) => Array.from({ length: count }, (_, index) => section(`Line ${index}`));
const modal = (blocks: object[], title = 'Limits'): ModalView => ({
  type: 'modal',
  title: plain(title),
  blocks: blocks as KnownBlock[],
});
const button = (actionId: string) => ({ type: 'button', action_id: actionId, text: plain('Go') });
const select = (optionCount: number) => ({
  type: 'static_select',
  action_id: 'pick',
  placeholder: plain('Pick'),
  options: Array.from({ length: optionCount }, (_, index) => ({ text: plain(`Option ${index}`), value: `${index}` })),
});

/** A trigger_id as the bot would get it: from a slash command the person just typed. */
async function freshTrigger(): Promise<string> {
  const before = bot.seen.commands.length;
  await alice.command('noop');
  return String(bot.seen.commands[before]?.['trigger_id']);
}

function lastFailure() {
  return fake.failures().at(-1);
}

describe('trigger_id', () => {
  it('can be exchanged once: a second views.open fails with exchanged_trigger_id', async () => {
    await alice.command('twice');
    await fake.waitFor(() => fake.callsTo('views.open').length === 2, 'two views.open calls');

    expect(fake.callsTo('views.open').map((call) => call.error ?? 'ok')).toEqual(['ok', 'exchanged_trigger_id']);
    await fake.waitFor(() => bot.errors.length > 0, 'Bolt to report the failed listener');
  });

  it('expires: views.open after expireTriggers() fails with expired_trigger_id', async () => {
    const release = bot.holdSlow();
    await alice.command('slow');
    fake.expireTriggers();
    release();

    const call = await fake.waitFor(() => fake.callsTo('views.open')[0], 'views.open');
    expect(call).toMatchObject({ ok: false, error: 'expired_trigger_id' });
    expect(alice.modal()).toBeUndefined();
    expect(fake.failures()).toEqual([call]);
  });

  it('must be one Slack issued', async () => {
    await expect(
      bot.app.client.views.open({ trigger_id: '123.456.abc', view: modal(sections(1)) }),
    ).rejects.toMatchObject({ data: { error: 'invalid_trigger_id' } });
  });
});

describe('Block Kit limits', () => {
  const post = (blocks: object[]) =>
    bot.app.client.chat.postMessage({ channel: DEFAULT_CHANNEL, text: 'fallback', blocks: blocks as KnownBlock[] });
  const open = async (view: ModalView) => bot.app.client.views.open({ trigger_id: await freshTrigger(), view });

  const messageCases: [string, object[], object[], string][] = [
    ['more than 50 blocks in a message', sections(50), sections(51), '/blocks'],
    [
      'a section text over 3,000 characters',
      [section('x'.repeat(3000))],
      [section('x'.repeat(3001))],
      '/blocks/0/text',
    ],
    [
      'a block_id over 255 characters',
      [section('x', { block_id: 'b'.repeat(255) })],
      [section('x', { block_id: 'b'.repeat(256) })],
      '/blocks/0/block_id',
    ],
    [
      'an action_id over 255 characters',
      [{ type: 'actions', elements: [button('a'.repeat(255))] }],
      [{ type: 'actions', elements: [button('a'.repeat(256))] }],
      '/blocks/0/elements/0/action_id',
    ],
    [
      'a repeated block_id',
      [section('x', { block_id: 'one' }), section('y', { block_id: 'two' })],
      [section('x', { block_id: 'one' }), section('y', { block_id: 'one' })],
      '/blocks/1/block_id',
    ],
    [
      'more than 100 options in a select',
      [section('x', { accessory: select(100) })],
      [section('x', { accessory: select(101) })],
      '/blocks/0/accessory/options',
    ],
  ];

  it.each(messageCases)(
    'rejects %s in chat.postMessage with invalid_blocks',
    async (_, atLimit, overLimit, pointer) => {
      await expect(post(atLimit)).resolves.toMatchObject({ ok: true });
      await expect(post(overLimit)).rejects.toMatchObject({ data: { error: 'invalid_blocks' } });

      expect(fake.failures()).toHaveLength(1);
      expect(lastFailure()).toMatchObject({ method: 'chat.postMessage', error: 'invalid_blocks' });
      expect(JSON.stringify(lastFailure()?.response)).toContain(`[json-pointer:${pointer}]`);
      expect(fake.channel(DEFAULT_CHANNEL).messages()).toHaveLength(1);
    },
  );

  const viewCases: [string, ModalView, ModalView, string][] = [
    ['more than 100 blocks in a view', modal(sections(100)), modal(sections(101)), '/view/blocks'],
    [
      'a modal title over 24 characters',
      modal(sections(1), 't'.repeat(24)),
      modal(sections(1), 't'.repeat(25)),
      '/view/title',
    ],
    [
      'a section text over 3,000 characters',
      modal([section('x'.repeat(3000))]),
      modal([section('x'.repeat(3001))]),
      '/view/blocks/0/text',
    ],
    [
      'a block_id repeated within the view',
      modal([section('x', { block_id: 'one' }), section('y')]),
      modal([section('x', { block_id: 'one' }), section('y', { block_id: 'one' })]),
      '/view/blocks/1/block_id',
    ],
    [
      'an action_id repeated within a block of the view',
      modal([{ type: 'actions', elements: [button('go'), button('stop')] }]),
      modal([{ type: 'actions', elements: [button('go'), button('go')] }]),
      '/view/blocks/0/elements/1/action_id',
    ],
    [
      'a block_id over 255 characters',
      modal([section('x', { block_id: 'b'.repeat(255) })]),
      modal([section('x', { block_id: 'b'.repeat(256) })]),
      '/view/blocks/0/block_id',
    ],
    [
      'more than 100 options in a select',
      modal([section('x', { accessory: select(100) })]),
      modal([section('x', { accessory: select(101) })]),
      '/view/blocks/0/accessory/options',
    ],
  ];

  it.each(viewCases)('rejects %s in views.open with invalid_arguments', async (_, atLimit, overLimit, pointer) => {
    await expect(open(atLimit)).resolves.toMatchObject({ ok: true });
    await expect(open(overLimit)).rejects.toMatchObject({ data: { error: 'invalid_arguments' } });

    expect(fake.failures()).toHaveLength(1);
    expect(lastFailure()).toMatchObject({ method: 'views.open', error: 'invalid_arguments' });
    expect(JSON.stringify(lastFailure()?.response)).toContain(`[json-pointer:${pointer}]`);
    expect(alice.modal()?.title).toBe(atLimit.title.text);
  });

  it('applies the view limits to views.publish', async () => {
    const home = (blocks: KnownBlock[]) =>
      bot.app.client.views.publish({ user_id: alice.id, view: { type: 'home', blocks } });
    await expect(home(sections(100))).resolves.toMatchObject({ ok: true });
    await expect(home(sections(101))).rejects.toMatchObject({ data: { error: 'invalid_arguments' } });
    expect(alice.home()?.blocks).toHaveLength(100);
  });

  it('records more than 100 options returned for an external select as a failure', async () => {
    await alice.command('login');
    const login = await fake.waitFor(() => alice.modal(), 'the login modal');

    await expect(login.search('Find a team', 'everything')).resolves.toEqual([]);
    expect(lastFailure()).toMatchObject({ method: 'options_response', error: 'invalid_options' });
    await expect(login.search('Team', 'search')).resolves.toEqual([{ text: 'Search', value: 'search' }]);
  });

  it('records a response_action update over the limits as a failure and keeps the modal', async () => {
    await alice.command('login');
    const login = await fake.waitFor(() => alice.modal(), 'the login modal');
    await login.search('Team', 'plat');
    await login.fill('Email', 'broken@example.com').fill('Password', 'x').choose('Team', 'Platform').submit();

    expect(lastFailure()).toMatchObject({ method: 'response_action', error: 'invalid_arguments' });
    expect(JSON.stringify(lastFailure()?.response)).toContain('[json-pointer:/view/title]');
    expect(login.title).toBe('Log in');
  });

  it('records errors for a block that is not an input as a failure and shows nothing', async () => {
    await alice.command('login');
    const login = await fake.waitFor(() => alice.modal(), 'the login modal');
    await login.search('Team', 'plat');
    login.fill('Email', 'misplaced-error').fill('Password', 'x').choose('Team', 'Platform');

    await login.submit();
    expect(lastFailure()).toMatchObject({ method: 'response_action', error: 'invalid_arguments' });
    expect(login.errors()).toEqual({});
    expect(login.isOpen).toBe(true);
  });
});

describe('views', () => {
  it('updates by external_id with the hash, keeps typed input, and refuses a stale hash', async () => {
    const form = (title: string): ModalView => ({
      ...modal(
        [
          {
            type: 'input',
            block_id: 'name',
            label: plain('Name'),
            element: { type: 'plain_text_input', action_id: 'value' },
          },
        ],
        title,
      ),
      submit: plain('Save'),
      external_id: 'form-1',
    });
    const opened = await bot.app.client.views.open({ trigger_id: await freshTrigger(), view: form('Step 1') });
    alice.modal()?.fill('Name', 'Ada');

    const updated = await bot.app.client.views.update({
      external_id: 'form-1',
      hash: opened.view?.hash ?? '',
      view: form('Step 2'),
    });
    expect(updated.view?.id).toBe(opened.view?.id);
    expect(alice.modal()?.title).toBe('Step 2');
    expect(alice.modal()?.values()).toEqual({ name: { value: { type: 'plain_text_input', value: 'Ada' } } });

    await expect(
      bot.app.client.views.update({
        view_id: opened.view?.id ?? '',
        hash: opened.view?.hash ?? '',
        view: form('Step 3'),
      }),
    ).rejects.toMatchObject({ data: { error: 'hash_conflict' } });
    await expect(bot.app.client.views.update({ view_id: 'V0MISSING', view: form('Step 3') })).rejects.toMatchObject({
      data: { error: 'not_found' },
    });
    await expect(
      bot.app.client.views.open({ trigger_id: await freshTrigger(), view: form('Other') }),
    ).rejects.toMatchObject({ data: { error: 'duplicate_external_id' } });

    await alice.modal()?.close();
    await expect(
      bot.app.client.views.open({ trigger_id: await freshTrigger(), view: form('Again') }),
    ).resolves.toMatchObject({ ok: true });
  });

  it('stacks at most three modals', async () => {
    await bot.app.client.views.open({ trigger_id: await freshTrigger(), view: modal(sections(1), 'One') });
    await bot.app.client.views.push({ trigger_id: await freshTrigger(), view: modal(sections(1), 'Two') });
    const third = await bot.app.client.views.push({
      trigger_id: await freshTrigger(),
      view: modal(sections(1), 'Three'),
    });
    expect(third.view).toMatchObject({ root_view_id: expect.any(String), previous_view_id: expect.any(String) });

    await expect(
      bot.app.client.views.push({ trigger_id: await freshTrigger(), view: modal(sections(1), 'Four') }),
    ).rejects.toMatchObject({ data: { error: 'push_limit_reached' } });
    expect(alice.modal()?.title).toBe('Three');
    await alice.modal()?.close();
    expect(alice.modal()?.title).toBe('Two');
  });

  it('refuses a stale hash on views.publish', async () => {
    const first = await bot.app.client.views.publish({
      user_id: alice.id,
      view: { type: 'home', blocks: sections(1) },
    });
    await bot.app.client.views.publish({
      user_id: alice.id,
      hash: first.view?.hash ?? '',
      view: { type: 'home', blocks: sections(2) },
    });
    await expect(
      bot.app.client.views.publish({
        user_id: alice.id,
        hash: first.view?.hash ?? '',
        view: { type: 'home', blocks: sections(3) },
      }),
    ).rejects.toMatchObject({ data: { error: 'hash_conflict' } });
    expect(alice.home()?.blocks).toHaveLength(2);
  });
});

describe('Web API and response_url', () => {
  it('requires the bot token', async () => {
    const call = (headers: Record<string, string>) =>
      fetch(`${fake.apiUrl}auth.test`, { method: 'POST', headers }).then((response) => response.json());
    expect(await call({})).toEqual({ ok: false, error: 'not_authed' });
    expect(await call({ authorization: 'Bearer xoxb-wrong' })).toEqual({ ok: false, error: 'invalid_auth' });
    expect(await call({ authorization: `Bearer ${BOT_TOKEN}` })).toMatchObject({ ok: true, user_id: fake.botUserId });
  });

  it('accepts JSON bodies and answers unknown methods with unknown_method', async () => {
    const call = (method: string, body: object) =>
      fetch(`${fake.apiUrl}${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BOT_TOKEN}`, 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(body),
      }).then((response) => response.json());

    const posted = await call('chat.postMessage', { channel: 'C0OTHER', text: 'hi', blocks: [section('Hello')] });
    expect(posted).toMatchObject({ ok: true, channel: 'C0OTHER', message: { text: 'hi', bot_id: expect.any(String) } });
    expect(fake.channel('C0OTHER').messages()[0]?.text()).toBe('Hello');
    expect(await call('chat.scheduleMessage', {})).toEqual({ ok: false, error: 'unknown_method' });
  });

  it('updates only existing messages and links to thread replies', async () => {
    const { client } = bot.app;
    const parent = await client.chat.postMessage({ channel: DEFAULT_CHANNEL, text: 'parent' });
    const reply = await client.chat.postMessage({
      channel: DEFAULT_CHANNEL,
      text: 'reply',
      thread_ts: parent.ts ?? '',
    });
    const link = await client.chat.getPermalink({ channel: DEFAULT_CHANNEL, message_ts: reply.ts ?? '' });

    expect(link.permalink).toBe(
      `https://faultline-test.slack.com/archives/${DEFAULT_CHANNEL}/p${(reply.ts ?? '').replace('.', '')}?thread_ts=${parent.ts}&cid=${DEFAULT_CHANNEL}`,
    );
    await expect(client.chat.update({ channel: DEFAULT_CHANNEL, ts: '1.000001', text: 'x' })).rejects.toMatchObject({
      data: { error: 'message_not_found' },
    });
    await client.chat.update({ channel: DEFAULT_CHANNEL, ts: reply.ts ?? '', text: 'edited reply' });
    expect(
      fake
        .channel(DEFAULT_CHANNEL)
        .thread(parent.ts ?? '')
        .map((message) => message.text()),
    ).toEqual(['edited reply']);
    expect(
      fake
        .channel(DEFAULT_CHANNEL)
        .messages()
        .map((message) => message.text()),
    ).toEqual(['parent']);
  });

  it('refuses a post without a channel first, then an ephemeral one without its person, then one without content', async () => {
    const { client } = bot.app;
    const refusal = (error: string) => ({ data: { ok: false, error } });
    await expect(client.chat.postMessage({ channel: '', text: '' })).rejects.toMatchObject(
      refusal('channel_not_found'),
    );
    await expect(client.chat.postMessage({ channel: DEFAULT_CHANNEL, text: '' })).rejects.toMatchObject(
      refusal('no_text'),
    );
    await expect(client.chat.postEphemeral({ channel: '', user: '', text: '' })).rejects.toMatchObject(
      refusal('channel_not_found'),
    );
    await expect(client.chat.postEphemeral({ channel: DEFAULT_CHANNEL, user: '', text: '' })).rejects.toMatchObject(
      refusal('user_not_in_channel'),
    );
    await expect(
      client.chat.postEphemeral({ channel: DEFAULT_CHANNEL, user: alice.id, text: '' }),
    ).rejects.toMatchObject(refusal('no_text'));
    expect(fake.channel(DEFAULT_CHANNEL).messages()).toEqual([]);
    expect(alice.ephemerals()).toEqual([]);
  });

  it('keeps ephemeral messages to the person they were sent to', async () => {
    await bot.app.client.chat.postEphemeral({ channel: DEFAULT_CHANNEL, user: alice.id, text: 'only for alice' });
    expect(alice.ephemerals(DEFAULT_CHANNEL).map((message) => message.text())).toEqual(['only for alice']);
    expect(alice.ephemerals('C0OTHER')).toEqual([]);
    expect(fake.user('U0BOB').ephemerals()).toEqual([]);
    expect(fake.channel(DEFAULT_CHANNEL).messages()).toEqual([]);
  });

  it('accepts a response_url five times, then answers 404 used_url', async () => {
    await alice.command('noop');
    const responseUrl = String(bot.seen.commands[0]?.['response_url']);
    const respond = (body: object) =>
      fetch(responseUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    const first = await respond({ text: 'one' });
    expect(first.status).toBe(200);
    const replaced = await respond({ text: 'one, replaced', replace_original: true });
    expect(replaced.status).toBe(200);
    expect(alice.ephemerals().map((message) => message.text())).toEqual(['one, replaced']);
    for (const text of ['three', 'four', 'five']) expect((await respond({ text })).status).toBe(200);

    const sixth = await respond({ text: 'six' });
    expect(sixth.status).toBe(404);
    expect(await sixth.json()).toEqual({ ok: false, error: 'used_url' });
    expect(alice.ephemerals()).toHaveLength(4);
  });

  it('rejects a response_url reply over the message limits', async () => {
    await alice.command('noop');
    const responseUrl = String(bot.seen.commands[0]?.['response_url']);
    const response = await fetch(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'too long', blocks: sections(51) }),
    });
    expect(response.status).toBe(400);
    expect(lastFailure()).toMatchObject({ method: 'response_url', error: 'invalid_blocks' });
    expect(alice.ephemerals()).toEqual([]);
  });
});
