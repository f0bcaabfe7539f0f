import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loginPage, loginPageHeaders } from '../../src/views/login/page.ts';

describe('the login page', () => {
  const html = loginPage({ kind: 'form', csrf: 'csrf-value', email: 'a"b@x.test', error: '<script>alert(1)</script>' });

  it('has labelled fields with the autocomplete a password manager expects, and a masked password', () => {
    expect(html).toMatch(
      /<label for="email">Email<\/label>\n<input id="email" name="email" type="email" autocomplete="username" required/,
    );
    expect(html).toContain(
      '<input id="password" name="password" type="password" autocomplete="current-password" required>',
    );
    expect(html).toContain('autocomplete="organization"');
    expect(html).toContain('<input type="hidden" name="csrf" value="csrf-value">');
    expect(html).toContain('formnovalidate>Forgot password</button>');
    expect(html).not.toContain('name="mfa"');
    expect(loginPage({ kind: 'form', csrf: 'c', mfa: true })).toMatch(
      /<input id="mfa" name="mfa" type="text" inputmode="numeric" autocomplete="one-time-code"/,
    );
  });

  it('escapes what it shows and carries no script', () => {
    expect(html).toContain('value="a&quot;b@x.test"');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/ on[a-z]+=/i);
  });

  it('names the Slack account it links, escaped, above the form and on the confirmation', () => {
    const linkedTo = { name: 'Dana <b>Scully</b>', handle: 'dana', workspace: 'Acme & Co' };
    const form = loginPage({ kind: 'form', csrf: 'c', linkedTo });
    expect(form).toContain(
      '<p class="account" role="note">This login will be linked to the Slack account of <strong>Dana &lt;b&gt;Scully&lt;/b&gt; (@dana)</strong> in <strong>Acme &amp; Co</strong>.',
    );
    expect(form.indexOf('role="note"')).toBeLessThan(form.indexOf('<form'));
    const done = loginPage({
      kind: 'loggedIn',
      linkedTo,
      identifier: 'dana@acme.test',
      company: 'Acme',
      team: undefined,
      severalTeams: false,
      slackUrl: 'slack://open',
      slackWebUrl: 'https://app.slack.com/client/T1',
    });
    expect(done).toContain('Linked to the Slack account of <strong>Dana &lt;b&gt;Scully&lt;/b&gt; (@dana)</strong>');
  });

  it("sends Back to Slack to the Slack app, or to the web client alone when it is not Slack's own", () => {
    const done = (slackUrl: string | undefined) =>
      loginPage({
        kind: 'loggedIn',
        identifier: 'dana@acme.test',
        company: 'Acme',
        team: undefined,
        severalTeams: false,
        slackUrl,
        slackWebUrl: 'http://127.0.0.1:4000/client/T1',
      });
    expect(done('slack://open?team=T1')).toContain('<a class="primary" href="slack://open?team=T1">Back to Slack</a>');
    expect(done('slack://open?team=T1')).toContain('Open Slack in the browser');
    expect(done(undefined)).toContain('<a class="primary" href="http://127.0.0.1:4000/client/T1">Back to Slack</a>');
    expect(done(undefined)).not.toContain('Open Slack in the browser');
  });

  it('allows only its own style, and is never cached nor referred', () => {
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const hash = createHash('sha256').update(style).digest('base64');
    expect(loginPageHeaders['content-security-policy']).toBe(
      `default-src 'none'; style-src 'sha256-${hash}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    );
    expect(loginPageHeaders['cache-control']).toBe('no-store');
    expect(loginPageHeaders['referrer-policy']).toBe('no-referrer');
  });
});
