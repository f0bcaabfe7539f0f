import { describe, expect, it } from 'vitest';
import { Stack, stackForFile } from './harness.ts';
import { resetsPerPerson } from '../../src/login/limits.ts';
import { PageClient, publicUrl, resetInSlack as resetFrom, secureLink } from '../login/support.ts';

const read = Stack.read;
const channel = 'C0GENERAL';
let stack: Stack;
stackForFile({ env: { PUBLIC_URL: publicUrl } }, (started) => (stack = started));

let n = 0;
const nextPerson = () => `U0LOGIN${++n}`;
const users = () => stack.sim.seed.users;
const platformLogins = () =>
  stack.sim.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/users/auth') && !r.path.includes('reset'))
    .length;
/** The person's direct messages from the bot (posted to their user id). */
const dms = (id: string) => stack.person(id).channel(id).messages();

describe('the secure login page end to end', () => {
  it('logs in, stores the session as the modal does, confirms in Slack and redraws App Home', async () => {
    const id = nextPerson();
    const { url } = await secureLink(stack, id, { email: users().solo.email });
    const page = await new PageClient(url).open();
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const homes = stack.homePublishes(id);
    await page.submit({ email: users().solo.email, password: users().solo.password });
    expect(page.said()).toContain('Logged in as solo@acme.test at Acme Demo');
    // The login window still open in Slack ends where the login began.
    expect(read(stack.person(id).modal())).toContain('Logged in as solo@acme.test at Acme Demo');
    expect(read(stack.person(id).modal())).toContain('Team: Platform');
    expect(page.html).toContain(`slack://open?team=${stack.fake.teamId}`);
    const confirmation = await stack.fake.waitFor(() => dms(id).at(-1), 'the confirmation DM');
    expect(read(confirmation)).toContain('Logged in as solo@acme.test at Acme Demo on the secure login page');
    expect(read(confirmation)).toContain('Team: Platform');
    expect(stack.homePublishes(id)).toBe(homes + 1);
    expect(read(await stack.ask(id, 'whoami'))).toMatch(/Current team\s+Platform/);

    // Used: the same link and the same form refuse to do it again.
    expect((await new PageClient(url).open()).status).toBe(410);
    expect((await page.submit({ email: users().solo.email, password: users().solo.password })).status).toBe(410);
  });

  it('with several teams, sends the team choice to Slack', async () => {
    const id = nextPerson();
    const page = await new PageClient((await secureLink(stack, id, { email: users().owner.email })).url).open();
    await page.submit({ email: users().owner.email, password: users().owner.password });
    expect(page.said()).toContain('You belong to several teams');
    // The login window in Slack asks for the team too.
    expect(stack.person(id).modal()?.callbackId).toBe('team_picker');
    const confirmation = await stack.fake.waitFor(() => dms(id).at(-1), 'the confirmation DM');
    await confirmation.click('Choose a team');
    const picker = await stack.fake.waitFor(
      () => stack.person(id).modal()?.callbackId === 'team_picker' && stack.person(id).modal(),
      'the team picker',
    );
    await picker.choose('Team', 'Search').submit();
    expect(read(await stack.ask(id, 'whoami'))).toMatch(/Current team\s+Search/);
  });

  it('refuses the 6th failed login in 15 minutes, modal and page together, without asking the platform', async () => {
    const id = nextPerson();
    for (let i = 0; i < 3; i++) {
      const person = await stack.submitLogin(id, { email: users().solo.email, password: `wrong-${i}` });
      expect(person.modal()?.errors()).toEqual({
        Password: 'E-mail or password not accepted. Check them and try again.',
      });
      await person.modal()!.close();
    }
    const page = await new PageClient((await secureLink(stack, id)).url).open();
    for (let i = 3; i < 5; i++) {
      await page.submit({ email: users().solo.email, password: `wrong-${i}` });
      expect(page.status).toBe(401);
      expect(page.said()).toContain('E-mail or password not accepted');
    }
    const before = platformLogins();
    await page.submit({ email: users().solo.email, password: users().solo.password });
    expect(page.status).toBe(429);
    expect(page.said()).toMatch(/Too many failed logins\. .* try again at \d\d:\d\d UTC \(in 1[0-5] minutes\)/);
    await stack.person(id).modal()!.close();
    const person = await stack.submitLogin(id, users().solo);
    await stack.fake.waitFor(
      () => person.modal()?.text().includes('Too many failed logins'),
      'the refusal in the modal',
    );
    expect(read(person.modal())).toMatch(/try again at /);
    expect(platformLogins()).toBe(before);

    // Someone else is not held back, and the person may try again once the window has passed.
    await stack.login(nextPerson(), users().solo);
    stack.advanceClock(15 * 60_000);
    await person.modal()!.close();
    await stack.login(id, users().solo);
  });

  it("refuses, in the Slack form, a login whose e-mail is not the person's Slack e-mail, and stores nothing", async () => {
    const id = nextPerson();
    const person = stack.person(id, { email: users().solo.email });
    await person.command('login');
    const modal = await stack.fake.waitFor(
      () => person.modal()?.callbackId === 'login' && person.modal(),
      'the login modal',
    );
    const before = platformLogins();
    await modal.fill('Email', users().owner.email).fill('Password', users().owner.password).submit();
    const errors = await stack.fake.waitFor(() => {
      const shown = person.modal()?.errors() ?? {};
      return Object.keys(shown).length > 0 && shown;
    }, 'the refusal');
    expect(errors['Email']).toMatch(
      /^owner@acme\.test is not the e-mail of your Slack profile\. Log in with your own platform account/,
    );
    expect(platformLogins()).toBe(before);
    expect(read(await stack.ask(id, 'whoami'))).toContain('not logged in');
    // Their own login, typed in another case, is theirs.
    await person
      .modal()!
      .fill('Email', users().solo.email.toUpperCase())
      .fill('Password', users().solo.password)
      .submit();
    await stack.fake.waitFor(() => person.modal()?.title === 'Logged in', 'the logged-in confirmation');
  });

  it('warns once, by DM, when a session ends within 10 minutes while the person has live attacks', async () => {
    const id = nextPerson();
    await stack.login(id, users().solo);
    stack.advanceClock(12 * 3600_000 - 15 * 60_000);
    const preview = await stack.ask(id, 'attack cpu -l 900 -c 1', { channel });
    await preview.click('Start');
    // The confirmation comes once the card is posted and saved.
    await stack.fake.waitFor(
      () => read(stack.person(id).ephemerals(channel).at(-1)).includes('Started cpu attack'),
      'the start confirmation',
    );
    await stack.poll();
    expect(dms(id)).toHaveLength(0);

    stack.advanceClock(6 * 60_000);
    await stack.poll();
    stack.advanceClock(10_000);
    await stack.poll();
    expect(dms(id)).toHaveLength(1);
    const warning = dms(id)[0]!;
    expect(read(warning)).toContain('Your platform session ends at');
    expect(read(warning)).toContain('an attack you started is still running');
    expect(warning.buttons().map((b) => b.text)).toEqual(['Log in on a secure page', 'Log in']);
    expect(warning.buttons()[0]!.url).toMatch(new RegExp(`^${publicUrl}/login/[A-Za-z0-9_-]{43}$`));
  });

  it('keeps link tokens, passwords and sessions out of the debug log, even in request lines Bolt writes', async () => {
    const id = nextPerson();
    const { url, token } = await secureLink(stack, id, { email: users().solo.email });
    await fetch(url, { method: 'HEAD' });
    const page = await new PageClient(url).open();
    const csrf = page.csrf();
    await page.submit({ email: users().solo.email, password: 'wrong-password-on-the-page' });
    await page.submit({ email: users().solo.email, password: users().solo.password });
    await stack.fake.waitFor(() => dms(id).at(-1), 'the confirmation DM');
    const log = stack.logText();
    expect(log).toContain('/login/[redacted]');
    for (const secret of [
      token,
      page.cookie!.split('=')[1]!,
      csrf,
      'wrong-password-on-the-page',
      users().solo.password,
    ])
      expect(log).not.toContain(secret);
  });
});

describe('reset e-mails', () => {
  const resetsFor = (email: string) => stack.sim.state.passwordResets.filter((r) => r.email === email).length;
  const resetInSlack = (id: string, email: string) => resetFrom(stack, id, email);

  it("sends one only to the asker's own Slack e-mail, and says so for any other address without telling whether it exists", async () => {
    const id = nextPerson();
    const { solo, owner } = users();
    stack.person(id, { email: solo.email });
    const notOwn = /^A reset e-mail goes only to the e-mail address of your Slack profile, so nothing was sent\./;
    const forOwner = await resetInSlack(id, owner.email);
    expect(forOwner).toMatch(notOwn);
    expect(await resetInSlack(id, 'nobody-here@acme.test')).toBe(forOwner);
    const page = await new PageClient((await secureLink(stack, id)).url).open();
    await page.submit({ intent: 'reset', email: owner.email });
    expect(page.status).toBe(403);
    expect(page.said()).toContain(forOwner);
    expect(resetsFor(owner.email) + resetsFor('nobody-here@acme.test')).toBe(0);

    expect(await resetInSlack(id, ` ${solo.email.toUpperCase()} `)).toBe('sent');
    await page.submit({ intent: 'reset', email: solo.email });
    expect(page.status).toBe(200);
    expect(resetsFor(solo.email) + resetsFor(solo.email.toUpperCase())).toBe(2);
  });

  it(`sends at most ${resetsPerPerson} an hour for one Slack person, from the Slack form and the page together`, async () => {
    const id = nextPerson();
    const email = 'person-own@acme.test';
    const page = await new PageClient((await secureLink(stack, id, { email })).url).open();
    for (let i = 0; i < resetsPerPerson - 1; i++) expect(await resetInSlack(id, email)).toBe('sent');
    await page.submit({ intent: 'reset', email });
    expect(page.status).toBe(200);
    expect(await resetInSlack(id, email)).toMatch(/^Too many reset e-mails were asked for\. Try again at /);
    await page.submit({ intent: 'reset', email });
    expect(page.status).toBe(429);
    expect(resetsFor(email)).toBe(resetsPerPerson);
  });

  it('sends no more than the limit when the page is asked many times at once', async () => {
    const email = 'burst@acme.test';
    const page = await new PageClient((await secureLink(stack, nextPerson(), { email })).url).open();
    const answers = await Promise.all(
      Array.from({ length: 4 * resetsPerPerson }, () =>
        new PageClient(page.url).adopt(page).submit({ intent: 'reset', email }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(resetsPerPerson);
    expect(resetsFor(email)).toBe(resetsPerPerson);
  });
});

describe('sso failures', () => {
  it('shows a security reader why recent single sign-ons failed, newest first, and refuses anyone else', async () => {
    const reader = nextPerson();
    await stack.login(reader, users().owner, { team: 'Platform' });
    const all = read(await stack.ask(reader, 'sso failures'));
    expect(all).toContain('Recent single sign-on failures, newest first:');
    const [newest, older] = [...stack.sim.seed.sso.failures].sort((a, b) => a.minutesAgo - b.minutesAgo);
    expect(all.indexOf(newest!.reason)).toBeLessThan(all.indexOf(older!.reason));
    const one = read(await stack.ask(reader, 'sso failures former@acme.test'));
    expect(one).toContain('former@acme.test: No platform user has this e-mail');
    expect(one).not.toContain(stack.sim.seed.sso.email);
    expect(read(await stack.ask(reader, 'sso failures nobody@acme.test'))).toContain(
      'No recent single sign-on failures of nobody@acme.test.',
    );
    expect(read(await stack.ask(reader, 'sso failures not-an-address'))).toContain('That is not an e-mail address.');

    const other = nextPerson();
    await stack.login(other, users().solo);
    expect(read(await stack.ask(other, 'sso failures'))).toContain('COMPANY_SECURITY_READ');
  });
});
