import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../src/demo.ts';
import { chromiumPath, hasChromium, skipNote } from './support/browser.ts';

/**
 * The demo stopped and started again while its page stays open, as someone presses Ctrl-C and
 * runs ./run.sh again: the page says the demo stopped, reconnects by itself, and shows what it
 * showed; the game day started before goes on.
 */

const waitMs = 15_000;
const dataDir = mkdtempSync(join(tmpdir(), 'faultline-restart-browser-'));
const complaints: string[] = [];
const logs = new Writable({
  write(chunk, _encoding, done) {
    complaints.push(
      ...String(chunk)
        .split('\n')
        .filter((line) => /"level":"(error|fatal)"/.test(line)),
    );
    done();
  },
});

let demo: Demo | undefined;
let browser: Browser | undefined;
let page: Page;
const pageErrors: string[] = [];

async function run(command: string): Promise<void> {
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(command);
  await composer.press('Enter');
  await expect.poll(() => composer.inputValue(), { timeout: waitMs }).toBe('');
}

describe.skipIf(!hasChromium)(skipNote('a restarted demo, in a browser'), { timeout: 90_000 }, () => {
  beforeAll(async () => {
    demo = await startDemo({ dataDir, port: 0, logDestination: logs });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(waitMs);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  it('reconnects by itself and shows the messages, the login and the game day from before', async () => {
    const first = demo!;
    const { owner } = first.sim.seed.users;
    await page.goto(`${first.playgroundUrl}#U0ALICE/C0GENERAL`);
    await page.getByText('Nothing here yet').waitFor();
    await run('/chaos login');
    const login = page.getByRole('dialog', { name: 'Log in to the platform' });
    await login.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await login.getByRole('textbox', { name: 'Password' }).fill(owner.password);
    await login.getByRole('button', { name: 'Log in', exact: true }).click();
    const picker = page.getByRole('dialog', { name: 'Choose a team' });
    await picker.getByRole('combobox', { name: 'Team' }).selectOption({ label: 'Platform' });
    await picker.getByRole('button', { name: 'Use this team' }).click();
    const done = page.getByRole('dialog', { name: 'Logged in' });
    await done.getByRole('button', { name: 'Done' }).click();
    await done.waitFor({ state: 'detached' });
    await run('/chaos gameday start Restart drill');
    const card = page.locator('#timeline > article.message:not(.ephemeral)', { hasText: 'Restart drill' });
    await card.waitFor();

    await first.stop();
    const lost = page.getByRole('status').filter({ hasText: 'Lost the connection' });
    await lost.waitFor();

    // Started again where it was, on the same address.
    demo = await startDemo({ dataDir, port: Number(new URL(first.playgroundUrl).port), logDestination: logs });
    await lost.waitFor({ state: 'hidden' });
    await card.waitFor();
    const drill = page.locator('#timeline > article.message.ephemeral', { hasText: 'Restart drill' });
    const drillNotes = await drill.count();
    await run('/chaos gameday status');
    await expect.poll(() => drill.count(), { timeout: waitMs }).toBeGreaterThan(drillNotes);
    const whoami = page.locator('#timeline > article.message.ephemeral', { hasText: 'Current team' });
    await run('/chaos whoami');
    await expect(whoami.last().innerText()).resolves.toContain(owner.email);
    expect(pageErrors).toEqual([]);
    expect(complaints).toEqual([]);
  });
});
