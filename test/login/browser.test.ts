import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Stack, stackForFile } from '../e2e/harness.ts';
import { publicUrl, secureLink } from './support.ts';

/**
 * The secure login page in Debian's Chromium with JavaScript turned off, against the whole
 * product: the bot in HTTP mode, the fake Slack and the platform simulator.
 * LOGIN_SCREENSHOT=1 also saves the page as docs/login-page.png for the README.
 */

const chromiumPath = '/usr/bin/chromium';
const hasChromium = existsSync(chromiumPath);
const title = hasChromium
  ? 'the secure login page in a browser'
  : `the secure login page in a browser (skipped: ${chromiumPath} is missing; apt-get install chromium)`;
const waitMs = 15_000;

let stack: Stack;
let n = 0;
const nextPerson = () => `U0BROWSER${++n}`;
const users = () => stack.sim.seed.users;
const dms = (id: string) => stack.person(id).channel(id).messages();

describe.skipIf(!hasChromium)(title, { timeout: 60_000 }, () => {
  stackForFile({ env: { PUBLIC_URL: publicUrl } }, (started) => (stack = started));
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  beforeEach(async () => {
    await context?.close();
    // A fresh cookie jar for each test, and no JavaScript: the page must not need it.
    context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 720, height: 820 } });
    page = await context.newPage();
    page.setDefaultTimeout(waitMs);
  });

  afterAll(async () => {
    await browser?.close();
  });

  async function logInWith(email: string, password: string) {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
  }

  it('masks the password, shows a wrong one as an error, then logs in and confirms in Slack', async () => {
    const id = nextPerson();
    const { url } = await secureLink(stack, id, { email: users().solo.email });
    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    expect(await page.getByLabel('Password').getAttribute('type')).toBe('password');
    expect(await page.getByLabel('Password').getAttribute('autocomplete')).toBe('current-password');
    expect(await page.getByLabel('Email').getAttribute('autocomplete')).toBe('username');
    if (process.env['LOGIN_SCREENSHOT']) {
      await page.getByLabel('Email').fill('you@company.com');
      await page.screenshot({ path: join(import.meta.dirname, '../../docs/login-page.png') });
    }

    await logInWith(users().solo.email, 'not-the-password');
    await page.getByRole('alert').filter({ hasText: 'E-mail or password not accepted' }).waitFor();
    expect(await page.getByLabel('Email').inputValue()).toBe(users().solo.email);
    expect(await page.getByLabel('Password').inputValue()).toBe('');

    await logInWith(users().solo.email, users().solo.password);
    await page.getByRole('heading', { name: 'You are logged in' }).waitFor();
    expect(await page.getByRole('link', { name: 'Back to Slack' }).getAttribute('href')).toBe(
      `slack://open?team=${stack.fake.teamId}`,
    );
    const confirmation = await stack.fake.waitFor(() => dms(id).at(-1), 'the confirmation in Slack');
    expect(Stack.read(confirmation)).toContain('Logged in as solo@acme.test at Acme Demo on the secure login page');
    expect(Stack.read(await stack.ask(id, 'whoami'))).toContain('solo@acme.test');
  });

  it('names the Slack person and workspace it links, before and after the password', async () => {
    const id = nextPerson();
    stack.person(id, { name: 'dana', realName: 'Dana Scully' });
    await page.goto((await secureLink(stack, id, { email: users().solo.email })).url);
    const before = page.getByRole('note');
    await before.filter({ hasText: 'Dana Scully (@dana)' }).waitFor();
    expect(await before.textContent()).toContain('faultline-test');
    expect(await before.textContent()).toContain('If you are not Dana Scully, close this page');

    await logInWith(users().solo.email, users().solo.password);
    await page.getByRole('heading', { name: 'You are logged in' }).waitFor();
    expect(await page.getByRole('note').textContent()).toMatch(
      /Linked to the Slack account of Dana Scully \(@dana\) in faultline-test/,
    );
  });

  it("refuses a login whose e-mail is not the Slack person's, stores nothing and asks the platform nothing", async () => {
    const id = nextPerson();
    stack.person(id, { name: 'fox', realName: 'Fox Mulder' });
    await page.goto((await secureLink(stack, id, { email: users().solo.email })).url);
    const before = stack.sim.requests.length;
    // The colleague the link was sent to types their own (owner's) login.
    await logInWith(users().owner.email, users().owner.password);
    const alert = page.getByRole('alert');
    await alert.filter({ hasText: "is not the e-mail of Fox Mulder's Slack profile" }).waitFor();
    expect(stack.sim.requests.length).toBe(before);
    expect(dms(id)).toEqual([]);
    expect(Stack.read(await stack.ask(id, 'whoami'))).toContain('not logged in');
  });

  it('refuses a link used once already, and one older than 10 minutes', async () => {
    const id = nextPerson();
    const { url } = await secureLink(stack, id, { email: users().solo.email });
    await page.goto(url);
    await logInWith(users().solo.email, users().solo.password);
    await page.getByRole('heading', { name: 'You are logged in' }).waitFor();
    expect((await page.goto(url))?.status()).toBe(410);
    await page.getByRole('heading', { name: 'This link no longer works' }).waitFor();

    const late = await secureLink(stack, id);
    stack.advanceClock(10 * 60_000);
    expect((await page.goto(late.url))?.status()).toBe(410);
    await page.getByRole('heading', { name: 'This link no longer works' }).waitFor();
  });

  it('refuses a link another browser opened first', async () => {
    const { url } = await secureLink(stack, nextPerson());
    await page.goto(url);
    const other = await browser.newContext({ javaScriptEnabled: false });
    try {
      const elsewhere = await other.newPage();
      expect((await elsewhere.goto(url))?.status()).toBe(410);
      await elsewhere.getByRole('heading', { name: 'This link was opened elsewhere' }).waitFor();
    } finally {
      await other.close();
    }
    // The browser that opened it first still can (a reload, say).
    expect((await page.goto(url))?.status()).toBe(200);
  });

  it('refuses a forged CSRF token without asking the platform', async () => {
    const { url } = await secureLink(stack, nextPerson());
    await page.goto(url);
    // What a forging site would post: this page's form with a token of its own.
    await page.locator('input[name="csrf"]').evaluate((input: { value: string }) => {
      input.value = 'forged-csrf-token';
    });
    const before = stack.sim.requests.length;
    await logInWith(users().solo.email, users().solo.password);
    await page.getByRole('heading', { name: 'This form could not be verified' }).waitFor();
    expect(stack.sim.requests.length).toBe(before);
  });

  it('asks for the MFA code when the platform wants it, then logs in', async () => {
    const id = nextPerson();
    const { sre } = users();
    await page.goto((await secureLink(stack, id, { email: sre.email })).url);
    await logInWith(sre.email, sre.password);
    await page.getByRole('status').filter({ hasText: 'Your account uses MFA' }).waitFor();
    const code = page.getByLabel('MFA code');
    expect(await code.getAttribute('autocomplete')).toBe('one-time-code');

    await page.getByLabel('Password').fill(sre.password);
    await code.fill('000000');
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'E-mail, password or MFA code not accepted' }).waitFor();

    await page.getByLabel('Password').fill(sre.password);
    await page.getByLabel('MFA code').fill(stack.sim.seed.mfaCode);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await page.getByRole('heading', { name: 'You are logged in' }).waitFor();
    await page.getByText('You belong to several teams').waitFor();
    const confirmation = await stack.fake.waitFor(() => dms(id).at(-1), 'the confirmation in Slack');
    expect(confirmation.buttons().map((b) => b.text)).toEqual(['Choose a team']);
  });

  it('sends a reset e-mail from "Forgot password" without needing the password', async () => {
    // To the person's own Slack e-mail: the only address LOGIN_EMAIL_MATCH=required sends one to.
    await page.goto((await secureLink(stack, nextPerson(), { email: users().solo.email })).url);
    await page.getByLabel('Email').fill(users().solo.email);
    await page.getByRole('button', { name: 'Forgot password' }).click();
    await page.getByRole('status').filter({ hasText: 'a reset e-mail is on its way' }).waitFor();
    expect(
      stack.sim.state.passwordResets.map((r) => (typeof r === 'string' ? r : (r as { email: string }).email)),
    ).toContain(users().solo.email);
  });
});
