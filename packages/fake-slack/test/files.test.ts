import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../src/index.ts';
import { capturingLogger } from './minimal-app.ts';

const BOT_TOKEN = 'xoxb-files-test';
const CHANNEL = 'C0REPORTS';
let fake: FakeSlack;
let client: webApi.WebClient;
/** What the client logged as errors: the refusals these tests ask for. */
let logged: string[];

async function start(options: { scopes?: string[] } = {}): Promise<void> {
  fake = await startFakeSlack({ signingSecret: 'secret', botToken: BOT_TOKEN, ...options });
  // No retries: a refusal must surface at once, not after Slack's back-off.
  logged = [];
  client = new webApi.WebClient(BOT_TOKEN, {
    slackApiUrl: fake.apiUrl,
    retryConfig: { retries: 0 },
    logger: capturingLogger(logged),
  });
}

beforeEach(() => start());
afterEach(() => fake.stop());

const report = '# Game day report\n\nTwo attacks, one guard trip. Ünïcödé survives.\n';

/** The first step done by hand, as a bot not using filesUploadV2 would. */
async function uploadUrl(filename: string, content: string) {
  const answer = await client.files.getUploadURLExternal({ filename, length: Buffer.byteLength(content) });
  return { url: String(answer.upload_url), id: String(answer.file_id) };
}

const postBytes = (url: string, body: string) => fetch(url, { method: 'POST', body });

describe('filesUploadV2 against the fake', () => {
  it('uploads text content and shares it in a thread with a comment', async () => {
    const result = await client.filesUploadV2({
      channel_id: CHANNEL,
      thread_ts: '1700000000.000100',
      initial_comment: 'The full report',
      filename: 'gameday-report.md',
      title: 'Game day report',
      content: report,
    });
    expect(result.ok).toBe(true);

    const [file, ...others] = fake.files();
    expect(others).toEqual([]);
    expect(file).toMatchObject({
      filename: 'gameday-report.md',
      title: 'Game day report',
      text: report,
      channel: CHANNEL,
      threadTs: '1700000000.000100',
      initialComment: 'The full report',
    });
    expect(file?.content.length).toBe(Buffer.byteLength(report));
    const [shared] = fake.channel(CHANNEL).thread('1700000000.000100');
    expect(shared?.fallbackText).toBe('The full report');
    expect(shared?.ts).toBe(file?.messageTs);
    expect(fake.calls.map((call) => call.method)).toEqual([
      'files.getUploadURLExternal',
      'file_upload',
      'files.completeUploadExternal',
    ]);
    expect(fake.failures()).toEqual([]);
  });

  it('uploads bytes given as a Buffer, titled by its file name, to a channel', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254]);
    await client.filesUploadV2({ channel_id: CHANNEL, file: bytes, filename: 'raw.bin' });
    expect(fake.files()).toEqual([
      expect.objectContaining({
        filename: 'raw.bin',
        title: 'raw.bin',
        content: bytes,
        channel: CHANNEL,
        threadTs: undefined,
      }),
    ]);
    expect(fake.channel(CHANNEL).messages()).toHaveLength(1);
  });

  it('refuses a channel the bot is not in, and an id that is not a channel', async () => {
    fake.setBotMembership(CHANNEL, false);
    await expect(client.filesUploadV2({ channel_id: CHANNEL, filename: 'a.md', content: 'x' })).rejects.toMatchObject({
      data: { error: 'not_in_channel' },
    });
    await expect(client.filesUploadV2({ channel_id: 'general', filename: 'a.md', content: 'x' })).rejects.toMatchObject(
      { data: { error: 'channel_not_found' } },
    );
    expect(fake.files()).toEqual([]);

    fake.setBotMembership(CHANNEL, true);
    await client.filesUploadV2({ channel_id: CHANNEL, filename: 'a.md', content: 'x' });
    expect(fake.files()).toHaveLength(1);
  });
});

describe('files.getUploadURLExternal', () => {
  it('answers an upload URL on the fake itself and a file id', async () => {
    const { url, id } = await uploadUrl('notes.md', 'hello');
    expect(url.startsWith(fake.apiUrl.replace(/api\/$/, 'upload/'))).toBe(true);
    expect(id).toMatch(/^F[A-Z0-9]+$/);
  });

  it.each([
    ['no filename', { length: 5 }, '/filename'],
    ['an empty filename', { filename: ' ', length: 5 }, '/filename'],
    ['no length', { filename: 'a.md' }, '/length'],
    ['a length of 0', { filename: 'a.md', length: 0 }, '/length'],
    ['a length that is not a number', { filename: 'a.md', length: 'five' }, '/length'],
  ])('refuses %s', async (_case, args, pointer) => {
    await expect(client.apiCall('files.getUploadURLExternal', args)).rejects.toMatchObject({
      data: { error: 'invalid_arguments', response_metadata: { messages: [expect.stringContaining(pointer)] } },
    });
    // Logged where the client was told to, not printed as an error of the test run.
    expect(logged).toEqual([expect.stringContaining(pointer)]);
  });
});

describe('the upload URL', () => {
  it('takes the exact number of bytes announced, once', async () => {
    const { url, id } = await uploadUrl('notes.md', 'hello');
    const short = await postBytes(url, 'hell');
    expect(short.status).toBe(400);
    expect(await short.text()).toBe('Expected 5 bytes, got 4');
    await expect(client.files.completeUploadExternal({ files: [{ id }], channel_id: CHANNEL })).rejects.toMatchObject({
      data: { error: 'file_not_found' },
    });

    const exact = await postBytes(url, 'hello');
    expect([exact.status, await exact.text()]).toEqual([200, 'OK - 5']);
    expect((await postBytes(url, 'hello')).status).toBe(400);
    expect((await postBytes(`${url}x`, 'hello')).status).toBe(404);
    expect(fake.callsTo('file_upload').map((call) => call.error ?? 'ok')).toEqual([
      'length_mismatch',
      'ok',
      'already_uploaded',
      'invalid_upload_url',
    ]);
  });
});

describe('files.completeUploadExternal', () => {
  it('refuses an unknown file id, a file not uploaded yet, and completing twice', async () => {
    const complete = (id: string) =>
      client.files.completeUploadExternal({ files: [{ id, title: 'Notes' }], channel_id: CHANNEL });
    await expect(complete('F0NOSUCHFILE')).rejects.toMatchObject({ data: { error: 'file_not_found' } });

    const { url, id } = await uploadUrl('notes.md', 'hello');
    await expect(complete(id)).rejects.toMatchObject({
      data: {
        error: 'file_not_found',
        response_metadata: { messages: [expect.stringContaining('not been uploaded')] },
      },
    });
    await postBytes(url, 'hello');
    const done = await complete(id);
    expect(done.files).toEqual([expect.objectContaining({ id, title: 'Notes', name: 'notes.md' })]);
    await expect(complete(id)).rejects.toMatchObject({ data: { error: 'file_not_found' } });
    expect(fake.files().map((file) => [file.title, file.text])).toEqual([['Notes', 'hello']]);
  });

  it('refuses a missing or malformed files argument, and a thread without a channel', async () => {
    await expect(client.apiCall('files.completeUploadExternal', { channel_id: CHANNEL })).rejects.toMatchObject({
      data: { error: 'invalid_arguments' },
    });
    await expect(client.apiCall('files.completeUploadExternal', { files: [{ title: 'no id' }] })).rejects.toMatchObject(
      { data: { error: 'invalid_arguments' } },
    );
    const { url, id } = await uploadUrl('notes.md', 'hello');
    await postBytes(url, 'hello');
    await expect(
      client.apiCall('files.completeUploadExternal', { files: [{ id }], thread_ts: '1.2' }),
    ).rejects.toMatchObject({ data: { error: 'invalid_arguments' } });
  });

  it('keeps a file completed without a channel private: no message anywhere', async () => {
    const { url, id } = await uploadUrl('private.md', 'secret');
    await postBytes(url, 'secret');
    await client.files.completeUploadExternal({ files: [{ id }] });
    expect(fake.files()).toEqual([
      expect.objectContaining({ id, channel: undefined, messageTs: undefined, text: 'secret' }),
    ]);
  });
});

describe('scopes', () => {
  it('needs files:write for the upload methods and users:read for users.info when the token has scopes', async () => {
    await fake.stop();
    await start({ scopes: ['chat:write', 'commands'] });
    fake.user('U0ALICE');
    await expect(client.files.getUploadURLExternal({ filename: 'a.md', length: 1 })).rejects.toMatchObject({
      data: { error: 'missing_scope', needed: 'files:write' },
    });
    await expect(client.files.completeUploadExternal({ files: [{ id: 'F1' }] })).rejects.toMatchObject({
      data: { error: 'missing_scope', needed: 'files:write' },
    });
    await expect(client.users.info({ user: 'U0ALICE' })).rejects.toMatchObject({
      data: { error: 'missing_scope', needed: 'users:read' },
    });

    await fake.stop();
    await start({ scopes: ['files:write', 'users:read'] });
    fake.user('U0ALICE');
    await expect(client.files.getUploadURLExternal({ filename: 'a.md', length: 1 })).resolves.toMatchObject({
      ok: true,
    });
    await expect(client.users.info({ user: 'U0ALICE' })).resolves.toMatchObject({ ok: true });
  });
});

describe('users.info', () => {
  it("reports a person's names, and refuses someone the workspace does not have", async () => {
    fake.user('U0ALICE', { name: 'alice', realName: 'Alice Liddell', displayName: 'alice.l' });
    fake.user('U0BOB');
    const alice = await client.users.info({ user: 'U0ALICE' });
    expect(alice.user).toMatchObject({
      id: 'U0ALICE',
      name: 'alice',
      real_name: 'Alice Liddell',
      is_bot: false,
      profile: { real_name: 'Alice Liddell', display_name: 'alice.l' },
    });
    const bob = await client.users.info({ user: 'U0BOB' });
    expect(bob.user).toMatchObject({ real_name: 'Bob', profile: { display_name: '' } });
    expect((await client.users.info({ user: fake.botUserId })).user?.is_bot).toBe(true);
    await expect(client.users.info({ user: 'U0NOBODY' })).rejects.toMatchObject({ data: { error: 'user_not_found' } });
  });
});

describe('e-mail addresses', () => {
  it('shows a profile e-mail and finds a person by it, whatever its case, only with users:read.email', async () => {
    await fake.stop();
    await start({ scopes: ['users:read'] });
    fake.user('U0ALICE', { email: 'alice@example.test' });
    expect((await client.users.info({ user: 'U0ALICE' })).user?.profile).not.toHaveProperty('email');
    await expect(client.users.lookupByEmail({ email: 'alice@example.test' })).rejects.toMatchObject({
      data: { error: 'missing_scope', needed: 'users:read.email' },
    });

    await fake.stop();
    await start({ scopes: ['users:read', 'users:read.email'] });
    fake.user('U0ALICE', { email: 'alice@example.test' });
    fake.user('U0BOB');
    expect((await client.users.info({ user: 'U0ALICE' })).user?.profile?.email).toBe('alice@example.test');
    expect((await client.users.lookupByEmail({ email: 'Alice@Example.test' })).user?.id).toBe('U0ALICE');
    await expect(client.users.lookupByEmail({ email: 'carol@example.test' })).rejects.toMatchObject({
      data: { error: 'users_not_found' },
    });
    // A person may change their e-mail in Slack.
    fake.user('U0ALICE', { email: 'alice@elsewhere.test' });
    expect((await client.users.lookupByEmail({ email: 'alice@elsewhere.test' })).user?.id).toBe('U0ALICE');
  });
});
