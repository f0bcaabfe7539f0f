import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasChromium, skipNote, useDemoInBrowser } from './support/browser.ts';

/**
 * The playground page in Debian's Chromium, against the whole demo: what a person does in a
 * browser, from the composer to the modal to the reply. CI installs /usr/bin/chromium.
 */

/** Bounds every wait on the page; the flows below take well under a second when healthy. */
const waitMs = 15_000;

describe.skipIf(!hasChromium)(skipNote('the playground in a browser'), { timeout: 60_000 }, () => {
  const playground = useDemoInBrowser({
    dataDirPrefix: 'faultline-browser-',
    waitMs,
    viewport: { width: 1280, height: 860 },
  });
  const { run, pageErrors, errorLogs } = playground;

  it('logs in through the modal and the team picker, then shows whoami', async () => {
    const { demo, page } = playground;
    const { owner } = demo.sim.seed.users;
    await page.goto(`${demo.playgroundUrl}#U0ALICE/C0GENERAL`);
    await page.getByText('Nothing here yet').waitFor();

    await run('/chaos login');
    const login = page.getByRole('dialog', { name: 'Log in to the platform' });
    await login.waitFor();
    await login.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await login.getByRole('textbox', { name: 'Password' }).fill(owner.password);
    await login.getByRole('button', { name: 'Log in', exact: true }).click();

    const picker = page.getByRole('dialog', { name: 'Choose a team' });
    await picker.waitFor();
    await picker.getByRole('combobox', { name: 'Team' }).selectOption({ label: 'Payments' });
    await picker.getByRole('button', { name: 'Use this team' }).click();

    const done = page.getByRole('dialog', { name: 'Logged in' });
    await done.getByText('Logged in as owner@acme.test at Acme Demo.').waitFor();
    await done.getByRole('button', { name: 'Done' }).click();
    await done.waitFor({ state: 'detached' });

    await run('/chaos whoami');
    const reply = page.locator('article.message.ephemeral', { hasText: 'Current team' });
    await reply.waitFor();
    const text = await reply.innerText();
    expect(text).toMatch(/Current team\s+Payments/);
    expect(text).toContain('Only visible to you');
    // Mrkdwn is drawn, not shown as markup characters.
    await expect
      .poll(() => reply.locator('strong', { hasText: 'owner@acme.test' }).count(), { timeout: waitMs })
      .toBe(1);

    await page.screenshot({ path: join(tmpdir(), 'faultline-playground.png') });
    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });

  it('shows a wrong password under its field and keeps what was typed', async () => {
    const { page } = playground;
    await page.getByRole('combobox', { name: 'Acting as' }).selectOption({ label: 'bob' });
    await page.getByText('Nothing here yet').waitFor();
    await run('/chaos login');
    const login = page.getByRole('dialog', { name: 'Log in to the platform' });
    await login.getByRole('textbox', { name: 'Email' }).fill('solo@acme.test');
    await login.getByRole('textbox', { name: 'Password' }).fill('not-the-password');
    await login.getByRole('button', { name: 'Log in', exact: true }).click();
    await login.getByRole('alert').filter({ hasText: 'E-mail or password not accepted' }).waitFor();
    expect(await login.getByRole('textbox', { name: 'Email' }).inputValue()).toBe('solo@acme.test');

    await login.getByRole('button', { name: 'Cancel' }).click();
    await login.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });

  it('carries the e-mail typed in the login form to Forgot password, and keeps it there after', async () => {
    const { demo, page } = playground;
    await page.goto(`${demo.playgroundUrl}#U0CAROL/C0GAMEDAY`);
    await page.getByText('Nothing here yet').waitFor();
    await run('/chaos login');
    const login = page.getByRole('dialog', { name: 'Log in to the platform' });
    await login.getByRole('textbox', { name: 'Email' }).fill('solo@acme.test');
    await login.getByRole('button', { name: 'Forgot password' }).click();
    const reset = page.getByRole('dialog', { name: 'Reset password' });
    await expect
      .poll(() => reset.getByRole('textbox', { name: 'Email' }).inputValue(), { timeout: waitMs })
      .toBe('solo@acme.test');

    await reset.getByRole('button', { name: 'Back' }).click();
    await reset.waitFor({ state: 'detached' });
    await expect
      .poll(() => login.getByRole('textbox', { name: 'Email' }).inputValue(), { timeout: waitMs })
      .toBe('solo@acme.test');

    await login.getByRole('button', { name: 'Forgot password' }).click();
    await reset.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('a reset e-mail is on its way').waitFor();
    expect(demo.sim.state.passwordResets.map((request) => request.email)).toContain('solo@acme.test');
    await page.getByRole('dialog', { name: 'Reset password' }).getByRole('button', { name: 'Done' }).click();
    await expect
      .poll(() => login.getByRole('textbox', { name: 'Email' }).inputValue(), { timeout: waitMs })
      .toBe('solo@acme.test');
    await login.getByRole('button', { name: 'Cancel' }).click();
    await login.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });

  it('searches an external select as the person types', async () => {
    const { demo, page } = playground;
    const { globex } = demo.sim.seed.users;
    // Past 100 teams the picker asks the app for options as the person types.
    demo.sim.addTeams(globex.email, 120);
    await page.getByRole('combobox', { name: 'Acting as' }).selectOption({ label: 'carol' });
    await run('/chaos login');
    const login = page.getByRole('dialog', { name: 'Log in to the platform' });
    await login.getByRole('textbox', { name: 'Email' }).fill(globex.email);
    await login.getByRole('textbox', { name: 'Password' }).fill(globex.password);
    await login.getByRole('button', { name: 'Log in', exact: true }).click();

    const picker = page.getByRole('dialog', { name: 'Choose a team' });
    const search = picker.getByRole('combobox', { name: 'Team' });
    await search.fill('Team 12');
    await picker.getByRole('option', { name: 'Team 120' }).click();
    await expect.poll(() => search.inputValue(), { timeout: waitMs }).toBe('Team 120');
    await picker.getByRole('button', { name: 'Use this team' }).click();

    const done = page.getByRole('dialog', { name: 'Logged in' });
    await done.getByText('Team: Team 120.').waitFor();
    await done.getByRole('button', { name: 'Done' }).click();
    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });

  it('asks for confirmation before a button with a confirm dialog acts', async () => {
    const { page } = playground;
    await page.getByRole('combobox', { name: 'Acting as' }).selectOption({ label: 'alice' });
    await run('/chaos halt all');
    const prompt = page.locator('article.message.ephemeral', { hasText: 'Halt all attacks?' });
    await prompt.getByRole('button', { name: 'Halt all attacks' }).click();
    const dialog = page.getByRole('dialog', { name: 'Halt all attacks?' });
    await dialog.waitFor();
    const timeline = page.locator('#timeline');
    const before = await timeline.innerText();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await prompt.getByRole('button', { name: 'Halt all attacks' }).click();
    await dialog.getByRole('button', { name: 'Halt all' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // The bot answers in the channel once it has halted (or replaced the prompt with the outcome).
    await expect.poll(() => timeline.innerText(), { timeout: waitMs }).not.toBe(before);
    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });

  it("walks App Home → New attack → Preview → Start, choosing the card's channel, then files a ticket with labels", async () => {
    const { demo, page } = playground;
    await page.getByRole('combobox', { name: 'Acting as' }).selectOption({ label: 'alice' });
    await page.locator('#home-link').click();
    await page.getByRole('button', { name: 'New attack' }).click();

    const builder = page.getByRole('dialog', { name: 'Start an attack' });
    await builder.getByRole('combobox', { name: 'Attack type' }).selectOption({ label: 'cpu' });
    await builder.getByText('Cores', { exact: false }).first().waitFor();
    await builder.getByRole('radio', { name: 'Every active client of the team' }).check();
    await builder
      .getByRole('textbox', { name: 'Length in seconds' })
      .or(builder.getByRole('spinbutton', { name: 'Length in seconds' }))
      .fill('45');
    await builder.getByRole('combobox', { name: 'Team' }).selectOption({ label: 'Platform' });
    // Opened from App Home, the builder asks where the card goes: the playground's channels.
    const channel = builder.getByRole('combobox', { name: 'Channel for its card' });
    expect(await builder.locator('.unsupported').count()).toBe(0);
    await channel.selectOption({ label: '# gameday' });
    await expect
      .poll(() => demo.fake.user('U0ALICE').modal()?.values()['attack_channel']?.['attack_channel'], {
        timeout: waitMs,
      })
      .toEqual({ type: 'conversations_select', selected_conversation: 'C0GAMEDAY' });
    await builder.getByRole('button', { name: 'Preview' }).click();
    // The preview shows where the person is, in the modal, and says where the card goes.
    await builder.getByText('-l 45').first().waitFor();
    // The page draws the channel by its name once it knows it, by its id until then.
    expect(await builder.innerText()).toMatch(/goes to #(gameday|C0GAMEDAY)\b/);
    await builder.getByRole('button', { name: 'Start' }).click();
    const started = page.getByRole('dialog', { name: 'Faultline' });
    await started.getByText('Started cpu attack').first().waitFor();
    await started.getByRole('button', { name: 'Close' }).first().click();
    await started.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: '# gameday' }).click();
    const card = page
      .locator('article.message:not(.ephemeral)', { hasText: 'cpu' })
      .filter({ has: page.getByRole('button', { name: 'File ticket' }) });
    await card.waitFor();
    // Times in the reader's zone, as the message times are, and emoji drawn: no UTC fallback, no :short_name:.
    await expect.poll(() => card.locator('time').count(), { timeout: waitMs }).toBeGreaterThan(0);
    expect(await card.innerText()).not.toMatch(/UTC|:[a-z_]+:/);
    const attacks = [...demo.sim.state.attacks.values()];
    expect(attacks.at(-1)).toMatchObject({ teamId: demo.sim.seed.teams.platform.id });

    await card.getByRole('button', { name: 'File ticket' }).click();
    const form = page.getByRole('dialog', { name: /ticket/i });
    await form.getByRole('combobox', { name: 'Priority' }).selectOption({ label: 'High' });
    await form.getByRole('combobox', { name: 'Environment' }).selectOption({ label: 'Production' });
    const labels = form.getByRole('listbox', { name: 'Labels' });
    expect(await form.locator('.unsupported').count()).toBe(0);
    await labels.selectOption([{ label: 'gameday' }, { label: 'postmortem' }]);
    await expect
      .poll(() => labels.locator('option:checked').allTextContents(), { timeout: waitMs })
      .toEqual(['gameday', 'postmortem']);
    // Taking one off again, as the × on Slack's chip does.
    await labels.selectOption([{ label: 'postmortem' }]);
    await expect
      .poll(() => JSON.stringify(demo.fake.user('U0ALICE').modal()?.values()), { timeout: waitMs })
      .not.toContain('"gameday"');
    await form.getByRole('button', { name: /file/i }).click();
    await page.getByRole('dialog', { name: 'Ticket filed' }).waitFor();
    expect(demo.sim.state.trackerIssues.at(-1)?.fields).toMatchObject({ labels: ['postmortem'] });
    await page.getByRole('dialog', { name: 'Ticket filed' }).getByRole('button').first().click();

    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });

  it('keeps what was typed in the builder when picking a target renames its field, and submits it', async () => {
    const { demo, page } = playground;
    await page.goto(`${demo.playgroundUrl}#U0ALICE/C0GAMEDAY`);
    await run('/chaos attack');
    const builder = page.getByRole('dialog', { name: 'Start an attack' });
    await builder.getByRole('combobox', { name: 'Attack type' }).selectOption({ label: 'cpu' });
    await builder.getByText('Cores', { exact: false }).first().waitFor();
    await builder.getByRole('textbox', { name: 'Target values' }).fill('platform-web-2');
    await builder.getByRole('radio', { name: 'Exact hosts' }).check();
    const hosts = builder.getByRole('textbox', { name: 'Host ids' });
    await hosts.waitFor();
    expect(await hosts.inputValue()).toBe('platform-web-2');
    // Slack keeps the value by block and action id, so the app has it too.
    await expect
      .poll(() => demo.fake.user('U0ALICE').modal()?.values()['attack_target_values']?.['attack_target_values'], {
        timeout: waitMs,
      })
      .toMatchObject({ value: 'platform-web-2' });
    // The preview checks the hosts against the chosen team's clients: platform-web-2 is Platform's.
    await builder.getByRole('combobox', { name: 'Team' }).selectOption({ label: 'Platform' });
    await expect
      .poll(() => demo.fake.user('U0ALICE').modal()?.values()['attack_team']?.['attack_team'], { timeout: waitMs })
      .toMatchObject({ selected_option: { text: { text: 'Platform' } } });
    await builder.getByRole('button', { name: 'Preview' }).click();
    await builder.waitFor({ state: 'detached' });
    const preview = page.locator('article.message.ephemeral', { hasText: '--target-hosts platform-web-2' });
    await preview.waitFor();
    expect(await preview.innerText()).toContain('Blast radius: 1 of 4 hosts');
    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });

  it('explains Acting as, and names ./run.sh when the demo stops answering', async () => {
    const { page } = playground;
    const picker = page.getByRole('combobox', { name: 'Acting as' });
    expect(await picker.getAttribute('aria-describedby')).toBe('person-note');
    expect(await page.locator('#person-note').innerText()).toContain('Who you are in this workspace');

    const connection = page.getByRole('status').filter({ hasText: 'Lost the connection' });
    await page.route('**/api/state*', (route) => route.abort());
    await connection.waitFor();
    expect(await connection.innerText()).toContain('./run.sh');
    await page.unroute('**/api/state*');
    await connection.waitFor({ state: 'hidden' });
  });
});
