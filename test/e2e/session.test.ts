import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { createClient } from '@redis/client';
import { describe, expect, it } from 'vitest';
import { createPlatformClient, UnauthorizedError } from '../../src/client/index.ts';
import { Agent } from 'undici';
import { Stack, stackForFile } from './harness.ts';

const read = Stack.read;

let stack: Stack;
stackForFile({}, (started) => (stack = started));

const users = () => stack.sim.seed.users;
let n = 0;
const nextPerson = () => `U0PERSON${++n}`;

describe('logging in', () => {
  it('with one team selects it at once', async () => {
    const id = nextPerson();
    const person = await stack.login(id, users().solo);
    expect(read(person.modal())).toContain('Logged in as solo@acme.test at Acme Demo');
    expect(read(person.modal())).toContain('Team: Platform');
    const reply = await stack.ask(id, 'whoami');
    expect(read(reply)).toContain('Logged in as solo@acme.test at Acme Demo');
    expect(read(reply)).toMatch(/Current team\s+Platform/);
    expect(read(reply)).toContain('HALT_WRITE');
    expect(read(reply)).toContain('Session ends');
  });

  it('with several teams shows the team picker, and the choice sticks', async () => {
    const id = nextPerson();
    const person = await stack.submitLogin(id, users().owner);
    const picker = await stack.fake.waitFor(
      () => person.modal()?.callbackId === 'team_picker' && person.modal(),
      'the team picker',
    );
    expect(read(picker)).toContain('You belong to 3 teams');
    await picker.choose('Team', 'Payments').submit();
    await stack.fake.waitFor(() => person.modal()?.title === 'Logged in', 'the confirmation');
    expect(read(await stack.ask(id, 'whoami'))).toMatch(/Current team\s+Payments/);
  });

  it('with a wrong password shows the error on the field and keeps the form open', async () => {
    const person = stack.person(nextPerson(), { email: users().solo.email });
    await person.command('login');
    const modal = await stack.fake.waitFor(() => person.modal(), 'the login modal');
    await modal.fill('Email', users().solo.email).fill('Password', 'not-the-password').submit();
    expect(person.modal()?.isOpen).toBe(true);
    expect(person.modal()?.callbackId).toBe('login');
    expect(person.modal()?.errors()).toEqual({
      Password: 'E-mail or password not accepted. Check them and try again.',
    });
    expect(stack.logText()).not.toContain('not-the-password');
  });

  it('answers Slack in time when the platform is slow, then shows the outcome in the modal', async () => {
    const id = nextPerson();
    stack.sim.faults.inject({ method: 'POST', path: '/users/auth', kind: 'latency', ms: 2_600, times: 2 });
    const person = await stack.submitLogin(id, { email: users().solo.email, password: 'wrong-password' });
    expect(person.modal()?.text()).toContain('Working on it');
    await stack.fake.waitFor(() => person.modal()?.text().includes('not accepted'), 'the late refusal', 10_000);
    expect(person.modal()?.callbackId).toBe('login');

    await person.modal()!.fill('Email', users().solo.email).fill('Password', users().solo.password).submit();
    expect(person.modal()?.text()).toContain('Working on it');
    await stack.fake.waitFor(() => person.modal()?.title === 'Logged in', 'the late login', 10_000);
  }, 20_000);

  it('rejects a malformed e-mail and MFA code before asking the platform', async () => {
    const person = stack.person(nextPerson());
    await person.command('login');
    const modal = await stack.fake.waitFor(() => person.modal(), 'the login modal');
    const before = stack.sim.requests.length;
    await modal.fill('Email', 'not-an-email').fill('Password', 'x').fill('MFA code', '12a456').submit();
    expect(person.modal()?.errors()).toEqual({
      Email: 'Enter the e-mail address you log in to the platform with.',
      'MFA code': 'The MFA code is 6 digits.',
    });
    expect(stack.sim.requests.length).toBe(before);
  });

  it('asks the MFA user for a code, then accepts the right one', async () => {
    const id = nextPerson();
    const person = stack.person(id, { email: users().sre.email });
    await person.command('login');
    const modal = await stack.fake.waitFor(() => person.modal(), 'the login modal');
    await modal.fill('Email', users().sre.email).fill('Password', users().sre.password).submit();
    expect(person.modal()?.errors()).toEqual({
      'MFA code': 'Your account uses MFA: enter the current 6-digit code from your authenticator app.',
    });
    await person.modal()!.fill('Password', users().sre.password).fill('MFA code', '000000').submit();
    expect(Object.keys(person.modal()?.errors() ?? {})).not.toHaveLength(0);
    await person.modal()!.fill('Password', users().sre.password).fill('MFA code', stack.sim.seed.mfaCode).submit();
    const picker = await stack.fake.waitFor(
      () => person.modal()?.callbackId === 'team_picker' && person.modal(),
      'the team picker',
    );
    await picker.choose('Team', 'Platform').submit();
    expect(read(await stack.ask(id, 'whoami'))).toContain('sre@acme.test');
  });

  it('sends a reset e-mail from "Forgot password", to the address typed in the login form, which keeps it', async () => {
    // The person's own Slack e-mail: the only address LOGIN_EMAIL_MATCH=required sends one to.
    const person = stack.person(nextPerson(), { email: users().solo.email });
    await person.command('login');
    const modal = await stack.fake.waitFor(() => person.modal(), 'the login modal');
    const typedEmail = () => JSON.stringify(person.modal()?.values()).includes(users().solo.email);
    modal.fill('Email', users().solo.email);
    await modal.click('Forgot password');
    let reset = await stack.fake.waitFor(
      () => person.modal()?.title === 'Reset password' && person.modal(),
      'the reset form',
    );
    expect(typedEmail()).toBe(true);
    // Back: the login form is there again, with the address still in it.
    await reset.close();
    expect(person.modal()?.callbackId).toBe('login');
    expect(typedEmail()).toBe(true);

    await person.modal()!.click('Forgot password');
    reset = await stack.fake.waitFor(
      () => person.modal()?.title === 'Reset password' && person.modal(),
      'the reset form again',
    );
    await reset.submit();
    const sent = await stack.fake.waitFor(
      () => person.modal()?.text().includes('a reset e-mail is on its way') && person.modal(),
      'the reset confirmation',
    );
    expect(stack.sim.state.passwordResets.map((r) => r.email)).toEqual([users().solo.email]);
    await sent.close();
    expect(person.modal()?.callbackId).toBe('login');
    expect(typedEmail()).toBe(true);
  });
});

describe('choosing a team', () => {
  it('switches by picker and by name, and refuses a name that is not one of yours', async () => {
    const id = nextPerson();
    await stack.login(id, users().owner, { team: 'Platform' });
    const person = stack.person(id);
    await person.command('team');
    const picker = await stack.fake.waitFor(
      () => person.modal()?.callbackId === 'team_picker' && person.modal(),
      'the team picker',
    );
    await picker.choose('Team', 'Search').submit();
    expect(read(await stack.ask(id, 'whoami'))).toMatch(/Current team\s+Search/);

    expect(read(await stack.ask(id, 'team payments'))).toContain('Now using team Payments');
    expect(read(await stack.ask(id, 'whoami'))).toMatch(/Current team\s+Payments/);

    const refused = await stack.ask(id, 'team Globex');
    expect(read(refused)).toContain('None of your teams matches');
    expect(read(refused)).toContain('Usage: /chaos team [name or id]');
    expect(read(await stack.ask(id, 'whoami'))).toMatch(/Current team\s+Payments/);
  });

  it('uses a searchable picker beyond 100 teams', async () => {
    stack.sim.addTeams(users().solo.email, 120);
    const id = nextPerson();
    const person = await stack.submitLogin(id, users().solo);
    const picker = await stack.fake.waitFor(
      () => person.modal()?.callbackId === 'team_picker' && person.modal(),
      'the team picker',
    );
    const found = await picker.search('Team', 'Team 11');
    expect(found.map((o) => o.text)).toEqual(expect.arrayContaining(['Team 110', 'Team 111']));
    expect(found.length).toBeLessThanOrEqual(100);
    await picker.choose('Team', 'Team 111').submit();
    expect(read(await stack.ask(id, 'whoami'))).toMatch(/Current team\s+Team 111/);
  });

  it('asks someone who is not logged in to log in, with a button that opens the form', async () => {
    const id = nextPerson();
    const reply = await stack.ask(id, 'team');
    expect(read(reply)).toContain('You are not logged in');
    await reply.click('Log in');
    await stack.fake.waitFor(() => stack.person(id).modal()?.callbackId === 'login', 'the login modal');
  });
});

describe('sessions', () => {
  it('logout ends the platform session too', async () => {
    const id = nextPerson();
    await stack.login(id, users().solo);
    const header = (await stack.built.sessions.get({ workspaceId: stack.fake.teamId, userId: id }))!.session.header;
    expect(read(await stack.ask(id, 'logout'))).toContain('Logged out: the platform ended your session');
    const platform = createPlatformClient({
      baseUrl: stack.sim.url,
      dispatcher: new Agent({ connect: { ca: stack.sim.ca } }),
    });
    const teamId = stack.sim.seed.teams.platform.id;
    await expect(platform.as({ header, teamId }).attacks.listActive()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(read(await stack.ask(id, 'whoami'))).toContain('You are not logged in');
  });

  it('an expired session makes the next command ask to log in, and is dropped', async () => {
    const id = nextPerson();
    await stack.login(id, users().solo);
    stack.advanceClock(13 * 3600_000);
    const reply = await stack.ask(id, 'whoami');
    expect(read(reply)).toContain('Your platform session has expired');
    expect(reply.buttons().map((b) => b.text)).toContain('Log in');
    expect(await stack.built.store.get(`session:${stack.fake.teamId}:${id}`)).toBeUndefined();
  });

  it('a session the platform revoked is dropped at the next platform call', async () => {
    const id = nextPerson();
    await stack.login(id, users().solo);
    stack.sim.expireSession(users().solo.email);
    const reply = await stack.ask(id, 'logout');
    expect(read(reply)).toContain('Logged out');
    expect(await stack.built.sessions.get({ workspaceId: stack.fake.teamId, userId: id })).toBeUndefined();
  });

  it('is not found under another workspace', async () => {
    const id = nextPerson();
    await stack.login(id, users().solo);
    const elsewhere = stack.fake.user(`${id}X`, { teamId: 'T0ELSEWHERE' });
    expect(await stack.built.sessions.get({ workspaceId: 'T0ELSEWHERE', userId: id })).toBeUndefined();
    await elsewhere.command('whoami');
    await stack.fake.waitFor(() => elsewhere.lastEphemeral(), 'a reply');
    expect(read(elsewhere.lastEphemeral())).toContain('You are not logged in');
  });
});

describe('requests that are not from Slack', () => {
  it('refuses a bad signature and a timestamp older than five minutes', async () => {
    const body = {
      command: '/chaos',
      text: 'help',
      user_id: 'U0MALLORY',
      team_id: stack.fake.teamId,
      channel_id: 'C0GENERAL',
      trigger_id: 'x',
      response_url: `${stack.fake.apiUrl}nowhere`,
    };
    // Only what a handler would do counts; Bolt's own auth.test at start-up may land meanwhile.
    const answered = () => stack.fake.calls.filter((c) => c.method !== 'auth.test').length;
    const before = answered();
    expect(
      (await stack.fake.post(body, { contentType: 'application/x-www-form-urlencoded', signature: 'bad' })).status,
    ).toBe(401);
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;
    expect(
      (await stack.fake.post(body, { contentType: 'application/x-www-form-urlencoded', timestamp: stale })).status,
    ).toBe(401);
    expect(answered()).toBe(before);
  });
});

describe('help', () => {
  it('lists the subcommands, explains one, and suggests the closest for a typo', async () => {
    const id = nextPerson();
    expect(read(await stack.ask(id, 'help'))).toContain('/chaos login');
    expect(read(await stack.ask(id, 'help team'))).toContain('/chaos team Payments');
    expect(read(await stack.ask(id, 'whomai'))).toContain('Did you mean /chaos whoami?');
  });
});

describe('persistent stores', () => {
  it('on SQLite: survives a restart and holds no token in plain text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'faultline-e2e-'));
    const local = await Stack.start({ storeUrl: `sqlite://${join(dir, 'bot.db')}` });
    try {
      await local.login('U0SQLITE', local.sim.seed.users.solo);
      await local.stopBot();
      const raw = readdirSync(dir)
        .map((f) => readFileSync(join(dir, f)).toString('latin1'))
        .join('');
      expect(raw).toContain('U0SQLITE');
      const session = [...local.sim.state.sessions.values()].at(-1)!;
      for (const secret of [session.token, session.renewToken]) expect(raw).not.toContain(secret);
      await local.startBot();
      expect((await local.ask('U0SQLITE', 'whoami')).text()).toContain('solo@acme.test');
    } finally {
      await local.stop();
    }
  });

  const redisUrl = process.env.REDIS_URL;
  it.skipIf(!redisUrl)(
    'on Redis: a second bot process sees the session, and Redis holds no token in plain text',
    async () => {
      const sessionKey = randomBytes(32).toString('base64');
      const storeNamespace = `faultline-e2e-${randomUUID()}`;
      const first = await Stack.start({ storeUrl: redisUrl!, sessionKey, storeNamespace });
      const second = await Stack.start({ storeUrl: redisUrl!, sessionKey, storeNamespace, sim: first.sim });
      const client = createClient({ url: redisUrl! });
      await client.connect();
      try {
        await first.login('U0REDIS', first.sim.seed.users.solo);
        expect((await second.ask('U0REDIS', 'whoami')).text()).toContain('solo@acme.test');
        // Values under `<namespace>::`, and the sorted set that indexes their keys.
        const keys = await client.keys(`${storeNamespace}::*`);
        const indexed = await client.zRange(`${storeNamespace}:keys`, 0, -1);
        const raw =
          keys.join('\n') + (await Promise.all(keys.map((k) => client.get(k)))).join('\n') + indexed.join('\n');
        expect(raw).toContain('U0REDIS');
        const session = [...first.sim.state.sessions.values()].at(-1)!;
        for (const secret of [session.token, session.renewToken]) expect(raw).not.toContain(secret);
      } finally {
        const keys = await client.keys(`${storeNamespace}*`);
        if (keys.length) await client.del(keys);
        await client.quit();
        await second.stop();
        await first.stop();
      }
    },
  );
});
