import { describe, expect, it } from 'vitest';
import { hasChromium, skipNote, useDemoInBrowser } from './support/browser.ts';

/**
 * What Slack shows that the page must show too, in Chromium against the whole demo: a file the
 * app shares (the game-day report), channel mentions by name, the message menu with the app's
 * message shortcut, and a narrow window that shows the conversation or the sidebar, each whole.
 */

const waitMs = 15_000;

describe.skipIf(!hasChromium)(skipNote('Slack’s surfaces in the playground'), { timeout: 120_000 }, () => {
  const playground = useDemoInBrowser({ dataDirPrefix: 'faultline-surfaces-browser-', waitMs });
  const { run, channelMessages, ephemerals, attackCard, pageErrors, errorLogs } = playground;
  const title = 'Surfaces drill';

  it('shows a channel mention by the channel’s name', async () => {
    const { page } = playground;
    await playground.logInAsOwner('U0ALICE/C0GAMEDAY', 'Platform');
    await run(`/chaos gameday start ${title}`);
    await channelMessages()
      .filter({ hasText: `Game day: ${title}` })
      .waitFor();
    await run('/chaos status');
    const status = ephemerals()
      .filter({ hasText: `${title} in #` })
      .last();
    await status.waitFor();
    const text = await status.innerText();
    expect(text).toContain(`${title} in #gameday`);
    expect(text).not.toContain('C0GAMEDAY');
    expect(await page.locator('.mention', { hasText: '#gameday' }).count()).toBeGreaterThan(0);
    expect(pageErrors).toEqual([]);
  });

  it('offers the app’s message shortcut in a message’s menu, which opens its form', async () => {
    const { page } = playground;
    await run('/chaos attack cpu -l 60 -c 1 --target-tags role=web --yes');
    const card = attackCard('cpu attack ·');
    await card.waitFor();
    await card.hover();
    await card.getByRole('button', { name: 'More actions' }).click();
    await page.getByRole('menuitem', { name: 'File tracker ticket' }).click();
    const form = page.getByRole('dialog', { name: /ticket/i });
    await expect
      .poll(async () => form.getByRole('textbox', { name: /summary/i }).inputValue(), { timeout: waitMs })
      .toContain('cpu');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await form.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });

  it('shows the game-day report as a file, which opens on its Markdown, and `gameday report` names it', async () => {
    const { page } = playground;
    await run('/chaos gameday end');
    await ephemerals()
      .filter({ hasText: 'still running' })
      .last()
      .getByRole('button', { name: 'Halt all and end' })
      .click();
    await channelMessages()
      .filter({ hasText: `Game day summary: ${title}` })
      .waitFor();

    const file = page.getByRole('button', { name: /^game-day-report-surfaces-drill-\d{4}-\d{2}-\d{2}\.md/ });
    await file.first().waitFor();
    const filename = /game-day-report-[\w-]+\.md/.exec((await file.first().textContent()) ?? '')![0];
    await file.first().click();
    const viewer = page.getByRole('dialog', { name: `Game day report: ${title}` });
    await viewer.getByText(`# Game day report: ${title}`).waitFor();
    expect(await viewer.innerText()).toContain('**Attacks:** 1');
    await viewer.getByRole('button', { name: 'Close' }).click();
    await viewer.waitFor({ state: 'hidden' });

    await run('/chaos gameday report');
    const answer = ephemerals()
      .filter({ hasText: `The report of game day ${title}` })
      .last();
    await answer.waitFor();
    expect(await answer.innerText()).toContain(filename);
    await expect.poll(() => file.count(), { timeout: waitMs }).toBe(2);
    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });

  it('shows a 420 px window one screen at a time, as a phone does: the conversation, or the sidebar with its header, Simulator and logins', async () => {
    const { page } = playground;
    await page.setViewportSize({ width: 420, height: 800 });
    /** The share of the window's area a part of the page covers (none when it is not shown). */
    const share = async (selector: string) => {
      const box = await page.locator(selector).boundingBox();
      const window = page.viewportSize()!;
      if (box === null) return 0;
      const width = Math.max(0, Math.min(box.x + box.width, window.width) - Math.max(box.x, 0));
      const height = Math.max(0, Math.min(box.y + box.height, window.height) - Math.max(box.y, 0));
      return (width * height) / (window.width * window.height);
    };
    // A conversation open: it has the whole window, the sidebar none of it.
    await expect.poll(() => page.locator('#title').innerText()).toBe('# gameday');
    expect(await share('.sidebar')).toBe(0);
    expect(await share('.main')).toBe(1);
    expect(await page.getByRole('textbox', { name: 'Message' }).isVisible()).toBe(true);

    // The conversation's menu button shows the sidebar, whole and usable.
    await page.getByRole('button', { name: 'Conversations' }).click();
    expect(await share('.sidebar')).toBe(1);
    const header = page.locator('.workspace-name');
    await header.scrollIntoViewIfNeeded();
    const clipped = await header.evaluate((element) => {
      const box = element.getBoundingClientRect();
      const sidebar = element.closest('.sidebar')!.getBoundingClientRect();
      return element.scrollWidth > element.clientWidth || box.height < 10 || box.bottom > sidebar.bottom + 0.5;
    });
    expect(clipped).toBe(false);

    const monitor = page.getByRole('combobox', { name: 'checkout p99 latency (1234567)' });
    await monitor.scrollIntoViewIfNeeded();
    expect(await monitor.isVisible()).toBe(true);
    await monitor.selectOption('Warn');
    await expect
      .poll(
        () =>
          playground.demo.sim.state.companies
            .get(playground.demo.sim.seed.company.id)!
            .monitoringA!.monitors.find((candidate) => candidate.id === 1234567)!.state,
        { timeout: waitMs },
      )
      .toBe('Warn');

    const logins = page.getByText(playground.demo.sim.seed.users.owner.email, { exact: true });
    await logins.scrollIntoViewIfNeeded();
    expect(await logins.isVisible()).toBe(true);

    // Choosing a conversation opens it on the whole window again; Back returns to it unchanged.
    await page.getByRole('button', { name: '# general' }).click();
    await expect.poll(() => page.locator('#title').innerText()).toBe('# general');
    expect(await share('.sidebar')).toBe(0);
    await page.getByRole('button', { name: 'Conversations' }).click();
    await page.getByRole('button', { name: 'Back to the conversation' }).click();
    expect(await share('.sidebar')).toBe(0);
    expect(await page.locator('#title').innerText()).toBe('# general');
    expect(await page.getByRole('textbox', { name: 'Message' }).isVisible()).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
