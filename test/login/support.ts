import type { Stack } from '../e2e/harness.ts';

/** What the bot is configured to put in links; tests reach the same bot on loopback. */
export const publicUrl = 'https://faultline.example.test';

/**
 * Runs `/chaos login` and takes the one-time link from the modal's "Log in on a secure page"
 * button. `email` is the person's Slack e-mail: the platform login they may link.
 */
export async function secureLink(
  stack: Stack,
  personId: string,
  options: { email?: string } = {},
): Promise<{ url: string; token: string }> {
  const person = stack.person(personId, options.email ? { email: options.email } : {});
  const opened = stack.fake.callsTo('views.open').length;
  await person.command('login');
  const modal = await stack.fake.waitFor(
    () =>
      stack.fake.callsTo('views.open').length > opened &&
      person
        .modal()
        ?.buttons()
        .some((b) => b.url) &&
      person.modal(),
    'the login modal with its link',
  );
  // LOGIN_MODE=sso offers only "Log in with SSO", which is the page's link with /sso after it.
  const buttons = modal.buttons();
  const link = (buttons.find((b) => b.text === 'Log in on a secure page') ??
    buttons.find((b) => b.text === 'Log in with SSO'))!.url!.replace(/\/sso$/, '');
  const token = link.split('/').at(-1)!;
  return { url: link.replace(publicUrl, `http://localhost:${stack.bot.port}`), token };
}

/** "Forgot password" in the Slack form: what the reset form says after Send. */
export async function resetInSlack(stack: Stack, id: string, email: string): Promise<string> {
  const person = stack.person(id);
  // The person may still have a login modal open: the one to use is the one this command opens.
  const opened = stack.fake.callsTo('views.open').length;
  await person.command('login');
  const login = await stack.fake.waitFor(
    () => stack.fake.callsTo('views.open').length > opened && person.modal()?.callbackId === 'login' && person.modal(),
    'the login modal',
  );
  await login.click('Forgot password');
  const form = await stack.fake.waitFor(
    () => person.modal()?.title === 'Reset password' && person.modal(),
    'the reset form',
  );
  await form.fill('Email', email).submit();
  const said = await stack.fake.waitFor(() => {
    const now = person.modal();
    const error = now?.errors()['Email'];
    return error ?? (now?.text().includes('a reset e-mail is on its way') ? 'sent' : undefined);
  }, 'the reset answer');
  await person.modal()?.close();
  await person.modal()?.close();
  return said;
}

/** The login page as a browser without JavaScript uses it: one cookie jar, forms posted as typed. */
export class PageClient {
  cookie: string | undefined;
  html = '';
  status = 0;
  headers = new Headers();
  readonly url: string;

  constructor(url: string) {
    this.url = url;
  }

  /** Takes another client's cookie and form, as a second tab of the same browser. */
  adopt(other: PageClient): this {
    this.cookie = other.cookie;
    this.html = other.html;
    return this;
  }

  async open(): Promise<this> {
    const response = await fetch(this.url, { headers: this.cookie ? { cookie: this.cookie } : {}, redirect: 'manual' });
    return this.#take(response);
  }

  csrf(): string {
    return /name="csrf" value="([^"]+)"/.exec(this.html)?.[1] ?? '';
  }

  async submit(fields: Record<string, string>, options: { csrf?: string } = {}): Promise<this> {
    const body = new URLSearchParams({ csrf: options.csrf ?? this.csrf(), intent: 'login', ...fields });
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) },
      body,
      redirect: 'manual',
    });
    return this.#take(response);
  }

  /** The page's message to the reader (error, notice or status), without markup. */
  said(): string {
    return [...this.html.matchAll(/<(?:p|h1)[^>]*>([\s\S]*?)<\/(?:p|h1)>/g)]
      .map((m) => m[1]!.replace(/<[^>]+>/g, ''))
      .join('\n');
  }

  async #take(response: Response): Promise<this> {
    this.status = response.status;
    this.headers = response.headers;
    const set = response.headers.getSetCookie().find((c) => c.startsWith('faultline_login='));
    if (set) this.cookie = set.split(';')[0];
    this.html = await response.text();
    return this;
  }
}
