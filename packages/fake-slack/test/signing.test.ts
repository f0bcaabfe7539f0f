import { beforeEach, describe, expect, it } from 'vitest';
import { slackSignature, type FakeSlack } from '../src/index.ts';
import { startFakeSlackWithApp, type MinimalApp } from './minimal-app.ts';

describe('slackSignature', () => {
  it("matches the example in Slack's request-signing documentation", () => {
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V' +
      '&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=' +
      '&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN' +
      '&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    expect(slackSignature('8f742231b10e8888abcd99yyyzzz85a5', 1531420618, body)).toBe(
      'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    );
  });
});

describe('signed deliveries to a Bolt app', () => {
  let fake: FakeSlack;
  let bot: MinimalApp;
  const challenge = { type: 'url_verification', token: 'fake-verification-token', challenge: 'a-challenge' };
  const nowSeconds = () => Math.floor(Date.now() / 1000);

  beforeEach(async () => {
    ({ fake, bot } = await startFakeSlackWithApp());
  });

  it('is accepted when signed with the signing secret', async () => {
    const response = await fake.post(challenge, { contentType: 'application/json' });
    expect(response).toEqual({ status: 200, body: { challenge: 'a-challenge' } });
  });

  it('is refused with 401 when the signature is wrong or missing', async () => {
    expect((await fake.post(challenge, { contentType: 'application/json', signature: 'bad' })).status).toBe(401);
    expect((await fake.post(challenge, { contentType: 'application/json', signature: 'missing' })).status).toBe(401);
  });

  it('is refused with 401 when the timestamp is more than five minutes old', async () => {
    const stale = await fake.post(challenge, { contentType: 'application/json', timestamp: nowSeconds() - 6 * 60 });
    expect(stale.status).toBe(401);
    const recent = await fake.post(challenge, { contentType: 'application/json', timestamp: nowSeconds() - 4 * 60 });
    expect(recent.status).toBe(200);
  });

  it('signs form bodies as sent, so a slash command posted raw reaches the listener', async () => {
    const response = await fake.post(
      {
        command: '/chaos',
        text: 'noop',
        user_id: 'U0RAW',
        team_id: fake.teamId,
        channel_id: 'C0RAW',
        trigger_id: '1.2.3',
        response_url: 'http://127.0.0.1:1/',
      },
      { contentType: 'application/x-www-form-urlencoded' },
    );
    expect(response.status).toBe(200);
    expect(bot.seen.commands[0]).toMatchObject({ user_id: 'U0RAW', text: 'noop' });
  });

  it('sends duplicate deliveries without retry headers', async () => {
    const delivered = (count: number) =>
      fake.waitFor(() => bot.seen.homeOpened.length === count, `delivery ${count} of app_home_opened`);
    await fake.user('U0ALICE').openHome();
    await delivered(1);
    await fake.redeliverLast({ as: 'duplicate' });
    await delivered(2);
    await fake.redeliverLast();
    await delivered(3);
    await fake.redeliverLast();
    await delivered(4);
    expect(bot.seen.homeOpened).toEqual([
      {},
      {},
      { retryNum: 1, retryReason: 'http_timeout' },
      { retryNum: 2, retryReason: 'http_timeout' },
    ]);
  });
});
