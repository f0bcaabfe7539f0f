import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Stack } from '../e2e/harness.ts';
import { PageClient, publicUrl, secureLink } from './support.ts';

const read = Stack.read;

describe('the secure page in Socket Mode', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ mode: 'socket', env: { PUBLIC_URL: publicUrl } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('is served on PORT, beside the health routes', async () => {
    const id = 'U0SOCKETPAGE';
    const page = await new PageClient(
      (await secureLink(stack, id, { email: stack.sim.seed.users.solo.email })).url,
    ).open();
    expect(page.status).toBe(200);
    await page.submit({ email: stack.sim.seed.users.solo.email, password: stack.sim.seed.users.solo.password });
    expect(page.said()).toContain('Logged in as solo@acme.test');
    expect((await fetch(`http://localhost:${stack.bot.port}/login/`)).status).toBe(404);
    expect((await fetch(`http://localhost:${stack.bot.port}/login/not-a-link`)).status).toBe(410);
    expect(await (await fetch(`http://localhost:${stack.bot.port}/readyz`)).text()).toBe('ready\n');
    stack.expectClean();
  });

  it("keeps the link's token out of the request line Bolt's receiver logs", async () => {
    const { url, token } = await secureLink(stack, 'U0SOCKETHEAD', { email: stack.sim.seed.users.solo.email });
    expect((await fetch(url, { method: 'HEAD' })).status).toBe(404);
    const log = stack.logText();
    expect(log).toContain('/login/[redacted]');
    expect(log).not.toContain(token);
    stack.expectClean();
  });
});

describe('LOGIN_MODE=page', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ env: { PUBLIC_URL: publicUrl, LOGIN_MODE: 'page' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('gives the link instead of the form, from the command and from every Log in button', async () => {
    const id = 'U0PAGEONLY';
    const person = stack.person(id);
    await person.command('login');
    const modal = await stack.fake.waitFor(() => person.modal(), 'the login modal');
    expect(modal.callbackId).toBe('login_secure_page');
    expect(read(modal)).toContain('never passes through Slack');
    expect(read(modal)).not.toContain('Password');
    expect(modal.buttons().map((b) => b.text)).toEqual(['Log in on a secure page', 'Log in with SSO']);
    await modal.click('Log in on a secure page');
    await modal.close();

    const reply = await stack.ask(id, 'whoami');
    await reply.click('Log in');
    await stack.fake.waitFor(
      () => person.modal()?.callbackId === 'login_secure_page',
      'the link from the Log in button',
    );
    await person.modal()!.close();

    const home = await stack.openHome(id);
    await home.click('Log in');
    await stack.fake.waitFor(() => person.modal()?.callbackId === 'login_secure_page', 'the link from App Home');
    stack.expectClean();
  });
});

describe('LOGIN_MODE=sso', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start({ env: { PUBLIC_URL: publicUrl, LOGIN_MODE: 'sso' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('offers single sign-on alone, in Slack and on the page, and takes no password', async () => {
    const id = 'U0SSOONLY';
    const person = stack.person(id, { email: stack.sim.seed.users.solo.email });
    await person.command('login');
    const modal = await stack.fake.waitFor(() => person.modal(), 'the login modal');
    expect(modal.buttons().map((b) => b.text)).toEqual(['Log in with SSO']);
    expect(modal.buttons()[0]!.url).toMatch(new RegExp(`^${publicUrl}/login/[A-Za-z0-9_-]{43}/sso$`));
    await modal.close();

    const page = await new PageClient((await secureLink(stack, id)).url).open();
    expect(page.html).not.toContain('type="password"');
    expect(page.html).toContain('Log in with SSO');
    // No SSO_COMPANY: the page asks for the company; one without SSO on the platform is named as such.
    expect(page.html).toContain('name="company"');
    const unknown = await new PageClient(`${page.url}/sso?company=Globex`).adopt(page).open();
    expect(unknown.status).toBe(400);
    expect(unknown.said()).toContain('Globex does not sign in with SSO on the platform.');
    const before = stack.sim.requests.length;
    await page.submit({ email: stack.sim.seed.users.solo.email, password: stack.sim.seed.users.solo.password });
    // The page carries no password form, so a password posted to it is not one it issued.
    expect(page.status).toBe(403);
    expect(stack.sim.requests.length).toBe(before);
    expect(Stack.read(await stack.ask(id, 'whoami'))).toContain('not logged in');
    stack.expectClean();
  });

  it('says nothing of a password in help', async () => {
    const id = 'U0SSOHELP';
    const page = read(await stack.ask(id, 'help login'));
    expect(page).toContain('Log in to the platform');
    expect(page.toLowerCase()).not.toContain('password');
    expect(read(await stack.ask(id, 'help')).toLowerCase()).not.toContain('password');
  });
});

describe('without PUBLIC_URL', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.start();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('keeps the modal, says the password shows while typed and how to get the secure page, and serves no page', async () => {
    const person = stack.person('U0MODALONLY');
    await person.command('login');
    const modal = await stack.fake.waitFor(() => person.modal(), 'the login modal');
    expect(read(modal)).toContain('the password shows while you type');
    expect(read(modal)).toContain('setting PUBLIC_URL');
    expect(modal.buttons().some((b) => b.url)).toBe(false);
    expect((await fetch(`http://127.0.0.1:${stack.bot.port}/login/${'a'.repeat(43)}`)).status).toBe(404);
    stack.expectClean();
  });
});
