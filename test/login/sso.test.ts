import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Stack, stackForFile } from '../e2e/harness.ts';
import { publicUrl, secureLink } from './support.ts';

/**
 * "Log in with SSO" in Debian's Chromium, JavaScript off, end to end: the bot's page, the
 * simulator's OAuth login and the identity provider it plays for the demo company, and back.
 * The browser reaches the bot at PUBLIC_URL, which each context routes to the bot on loopback.
 */

const chromiumPath = '/usr/bin/chromium';
const hasChromium = existsSync(chromiumPath);
const title = hasChromium
  ? 'single sign-on in a browser'
  : `single sign-on in a browser (skipped: ${chromiumPath} is missing)`;

let stack: Stack;
let n = 0;
const nextPerson = () => `U0SSO${++n}`;
const dms = (id: string) => stack.person(id).channel(id).messages();
const callbackPrefix = `${publicUrl}/login/sso/callback`;

describe.skipIf(!hasChromium)(title, { timeout: 60_000 }, () => {
  stackForFile({ env: { PUBLIC_URL: publicUrl, SSO_COMPANY: 'Acme Demo' } }, (started) => (stack = started));
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu'],
    });
  }, 60_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
  });

  /**
   * A browser of its own (one cookie jar), JavaScript off, trusting the simulator's certificate,
   * whose requests to PUBLIC_URL reach the bot. With `hold`, its first callback is recorded and not followed.
   */
  async function newBrowser(options: { hold?: string[] } = {}): Promise<Page> {
    const context = await browser.newContext({ javaScriptEnabled: false, ignoreHTTPSErrors: true });
    contexts.push(context);
    await context.route(`${publicUrl}/**`, async (route) => {
      const url = route.request().url();
      if (options.hold?.length === 0 && url.startsWith(callbackPrefix)) {
        options.hold.push(url);
        return route.fulfill({ status: 204, body: '' });
      }
      const response = await route.fetch({ url: url.replace(publicUrl, `http://127.0.0.1:${stack.bot.port}`) });
      return route.fulfill({ response });
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    return page;
  }

  /** Opens a person's link at PUBLIC_URL and follows "Log in with SSO" to the identity provider's page. */
  async function toProvider(page: Page, id: string, email = stack.sim.seed.sso.email) {
    const { token } = await secureLink(stack, id, { email });
    await page.goto(`${publicUrl}/login/${token}`);
    await page.getByRole('link', { name: 'Log in with SSO' }).click();
    await page.getByRole('link', { name: 'Continue to the sign-in page' }).click();
    await page.getByRole('heading', { name: 'Sign in to Acme Demo' }).waitFor();
  }

  const signIn = (page: Page) => page.getByRole('button', { name: `Sign in as ${stack.sim.seed.sso.email}` }).click();

  it('logs in through the identity provider, names the Slack person, confirms in Slack; a replay stores nothing', async () => {
    const id = nextPerson();
    stack.person(id, { name: 'sasha', realName: 'Sasha Sso' });
    const page = await newBrowser();
    const { token } = await secureLink(stack, id, { email: stack.sim.seed.sso.email });
    await page.goto(`${publicUrl}/login/${token}`);
    expect(await page.getByRole('note').textContent()).toContain('Sasha Sso (@sasha)');
    await page.getByRole('link', { name: 'Log in with SSO' }).click();
    await page.getByRole('link', { name: 'Continue to the sign-in page' }).click();
    await page.getByRole('heading', { name: 'Sign in to Acme Demo' }).waitFor();
    await signIn(page);
    await page.getByRole('heading', { name: 'You are logged in' }).waitFor();
    const callback = page.url();
    expect(await page.getByRole('note').textContent()).toContain('Linked to the Slack account of Sasha Sso (@sasha)');
    const confirmation = await stack.fake.waitFor(() => dms(id).at(-1), 'the confirmation in Slack');
    expect(Stack.read(confirmation)).toContain('Logged in as sso@acme.test at Acme Demo');
    expect(Stack.read(stack.person(id).modal())).toContain('Logged in as sso@acme.test at Acme Demo');
    expect(Stack.read(await stack.ask(id, 'whoami'))).toContain('sso@acme.test');

    const sessions = stack.sim.state.sessions.size;
    expect((await page.goto(callback))?.status()).toBe(410);
    await page.getByRole('heading', { name: 'This sign-in was used already' }).waitFor();
    expect(stack.sim.state.sessions.size).toBe(sessions);

    // Nothing of the sign-in reaches a log: not the code, the state, the link, nor the session.
    const log = stack.logText();
    const url = new URL(callback);
    for (const secret of [url.searchParams.get('code')!, url.searchParams.get('state')!, token])
      expect(log).not.toContain(secret);
  });

  it("names the Slack person before going on to the identity provider from Slack's Log in with SSO, and waits for a click", async () => {
    // Slack's button opens the link at /sso: a forwarded one must not sign whoever clicks it in unawares.
    const id = nextPerson();
    stack.person(id, { name: 'kim', realName: 'Kim Sender' });
    const { url } = await secureLink(stack, id, { email: stack.sim.seed.sso.email });
    const html = await (await fetch(`${url}/sso`)).text();
    expect(html).toContain('This login will be linked to the Slack account of <strong>Kim Sender (@kim)</strong>');
    expect(html).not.toContain('http-equiv="refresh"');

    const page = await newBrowser();
    const { token } = await secureLink(stack, id, { email: stack.sim.seed.sso.email });
    await page.goto(`${publicUrl}/login/${token}/sso`);
    expect(await page.getByRole('note').textContent()).toContain('Kim Sender (@kim)');
    await page.getByRole('link', { name: 'Continue to the sign-in page' }).click();
    await page.getByRole('heading', { name: 'Sign in to Acme Demo' }).waitFor();
    await signIn(page);
    await page.getByRole('heading', { name: 'You are logged in' }).waitFor();
    expect(Stack.read(await stack.ask(id, 'whoami'))).toContain('sso@acme.test');
  });

  it('refuses a callback in another browser, and a state another link started, storing nothing', async () => {
    const held: string[] = [];
    const first = await newBrowser({ hold: held });
    const id = nextPerson();
    await toProvider(first, id);
    await signIn(first);
    await stack.fake.waitFor(() => held.length === 1, 'the callback held');

    // Another browser: no cookie of the one that started it.
    const other = await newBrowser();
    expect((await other.goto(held[0]!))?.status()).toBe(403);
    await other.getByRole('heading', { name: 'This sign-in was started elsewhere' }).waitFor();

    // That browser starts a link of its own, then is sent the first link's callback.
    await toProvider(other, nextPerson());
    expect((await other.goto(held[0]!))?.status()).toBe(403);
    expect(Stack.read(await stack.ask(id, 'whoami'))).toContain('not logged in');
    expect(dms(id)).toEqual([]);
  });

  it('refuses a sign-in that took longer than 10 minutes', async () => {
    const held: string[] = [];
    const page = await newBrowser({ hold: held });
    const id = nextPerson();
    await toProvider(page, id);
    await signIn(page);
    await stack.fake.waitFor(() => held.length === 1, 'the callback held');
    stack.advanceClock(10 * 60_000);
    expect((await page.goto(held[0]!))?.status()).toBe(410);
    await page.getByRole('heading', { name: 'This sign-in no longer works' }).waitFor();
    expect(Stack.read(await stack.ask(id, 'whoami'))).toContain('not logged in');
  });

  it("refuses a sign-in whose e-mail is not the Slack person's", async () => {
    const id = nextPerson();
    stack.person(id, { name: 'robin', realName: 'Robin Other' });
    const page = await newBrowser();
    await toProvider(page, id, stack.sim.seed.users.solo.email);
    await signIn(page);
    await page.getByRole('heading', { name: 'Not linked' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain(
      "sso@acme.test is not the e-mail of Robin Other's Slack profile",
    );
    expect(Stack.read(await stack.ask(id, 'whoami'))).toContain('not logged in');
  });

  it('says so when the person cancels at the identity provider', async () => {
    const page = await newBrowser();
    const id = nextPerson();
    await toProvider(page, id);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Your company did not sign you in' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('access_denied');
    expect(Stack.read(await stack.ask(id, 'whoami'))).toContain('not logged in');
  });
});
