import { describe, expect, it } from 'vitest';
import { resetsPerEmail } from '../../src/login/limits.ts';
import { PageClient, publicUrl, resetInSlack, secureLink } from '../login/support.ts';
import { Stack, stackForFile } from './harness.ts';

/**
 * LOGIN_EMAIL_MATCH=off, for companies whose platform and Slack e-mails differ: a login may be
 * linked to any Slack person, so the owner of the login's e-mail is told, and can end it.
 */
let stack: Stack;
stackForFile({ env: { PUBLIC_URL: publicUrl, LOGIN_EMAIL_MATCH: 'off' } }, (started) => (stack = started));

const read = Stack.read;
const users = () => stack.sim.seed.users;
const dms = (id: string) => stack.person(id).channel(id).messages();
const logouts = () => stack.sim.requests.filter((r) => r.method === 'DELETE' && r.path === '/users/auth').length;

describe('a login linked to another Slack person', () => {
  it("tells the owner of the login's e-mail which Slack account it went to, and lets them end that session", async () => {
    // Mallory sends her link to the owner, who logs in on it with his own platform account.
    stack.person('U0MALLORY', { name: 'mallory', realName: 'Mallory Mayhem', email: 'mallory@acme.test' });
    stack.person('U0OWNER', { name: 'olivia', realName: 'Olivia Owner', email: users().owner.email });
    const page = await new PageClient((await secureLink(stack, 'U0MALLORY')).url).open();
    await page.submit({ email: users().owner.email, password: users().owner.password });
    expect(page.said()).toContain('Logged in as owner@acme.test');
    expect(read(await stack.ask('U0MALLORY', 'whoami'))).toContain('Logged in as owner@acme.test');

    const notice = await stack.fake.waitFor(() => dms('U0OWNER').at(-1), "the notice to the login's owner");
    expect(read(notice)).toContain(
      'Your platform login owner@acme.test was just linked to the Slack account of Mallory Mayhem (@mallory)',
    );
    expect(notice.buttons().map((b) => b.text)).toEqual(['End that session']);
    const before = logouts();
    await notice.click('End that session');
    await stack.fake.waitFor(
      () =>
        read(dms('U0OWNER').at(-1)).includes(
          'Ended: Mallory Mayhem (@mallory) is no longer logged in as owner@acme.test',
        ),
      'the session ended',
    );
    expect(logouts()).toBe(before + 1);
    expect(read(await stack.ask('U0MALLORY', 'whoami'))).toContain('not logged in');
  });

  it('tells nobody when the login is linked to the person whose e-mail it is, or nobody has that e-mail', async () => {
    const postedBefore = stack.fake.callsTo('chat.postMessage').length;
    const posted = () => stack.fake.callsTo('chat.postMessage').slice(postedBefore);
    stack.person('U0SOLO', { email: users().solo.email });
    const own = await new PageClient((await secureLink(stack, 'U0SOLO')).url).open();
    await own.submit({ email: users().solo.email, password: users().solo.password });
    stack.person('U0NOMATCH', { email: 'someone@elsewhere.test' });
    const other = await new PageClient((await secureLink(stack, 'U0NOMATCH')).url).open();
    await other.submit({ email: users().globex.email, password: users().globex.password });
    expect(other.said()).toContain('Logged in as globex@globex.test');
    // Only the two confirmations, each to the person who logged in.
    const confirmations = await stack.fake.waitFor(() => posted().length >= 2 && posted(), 'both confirmations');
    expect(confirmations.map((call) => call.args['channel'])).toEqual(['U0SOLO', 'U0NOMATCH']);
  });
});

describe('reset e-mails asked for by anyone', () => {
  const resetsFor = (email: string) => stack.sim.state.passwordResets.filter((r) => r.email === email).length;

  it(`sends at most ${resetsPerEmail} an hour to one address asked for by others, and never refuses its owner`, async () => {
    const { email } = users().solo;
    for (let i = 0; i < resetsPerEmail; i++) expect(await resetInSlack(stack, `U0ASKER${i}`, email)).toBe('sent');
    const refused = await resetInSlack(stack, 'U0ASKERX', email);
    expect(refused).toMatch(
      /^Too many reset e-mails were asked for\. Try again at \d\d:\d\d UTC \(in \d+ minutes\)\.$/,
    );
    // Someone else, on the page: the same address is spent, with the same reply.
    const page = await new PageClient((await secureLink(stack, 'U0ASKERY')).url).open();
    await page.submit({ intent: 'reset', email });
    expect(page.status).toBe(429);
    expect(page.said()).toContain(refused);
    expect(resetsFor(email)).toBe(resetsPerEmail);

    // The address's owner, whose Slack e-mail it is, in Slack and on the page.
    stack.person('U0SOLOOWNER', { email });
    expect(await resetInSlack(stack, 'U0SOLOOWNER', email)).toBe('sent');
    const own = await new PageClient((await secureLink(stack, 'U0SOLOOWNER')).url).open();
    await own.submit({ intent: 'reset', email });
    expect(own.status).toBe(200);
    expect(resetsFor(email)).toBe(resetsPerEmail + 2);
  });
});
