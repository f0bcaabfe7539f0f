import { describe, expect, it } from 'vitest';
import { hasChromium, skipNote, useDemoInBrowser } from './support/browser.ts';

/**
 * The app's direct messages in the playground page, in Chromium: a login on the secure page is
 * confirmed by direct message, the sidebar counts it unread, the person's direct messages show it,
 * and its button works from there. Another person's direct messages stay theirs, and the login
 * page's Back to Slack opens the page there again, at Slack's web-client address.
 */

const waitMs = 20_000;

for (const viewport of [
  { width: 1280, height: 900 },
  { width: 420, height: 860 },
]) {
  describe.skipIf(!hasChromium)(
    skipNote(`direct messages in a browser ${viewport.width} px wide`),
    { timeout: 120_000 },
    () => {
      const playground = useDemoInBrowser({
        dataDirPrefix: 'faultline-dm-browser-',
        waitMs,
        viewport,
      });
      const { run, pageErrors, errorLogs } = playground;
      const narrow = viewport.width < 720;

      /** The sidebar: in a narrow window, behind the conversation's menu button, which counts what is unread. */
      async function openSidebar(): Promise<void> {
        if (narrow) await playground.page.locator('#sidebar-open').click();
      }

      it('shows the login confirmation among the direct messages, counted unread until opened, and its button works', async () => {
        const { demo, page } = playground;
        const { owner } = demo.sim.seed.users;
        await page.goto(`${demo.playgroundUrl}#U0BOB/C0GENERAL`);
        await page.getByText('Nothing here yet').waitFor();
        const directLink = page.locator('#dm-link');
        await expect.poll(() => directLink.getAttribute('aria-label')).toBe('Faultline, direct messages');

        await run('/chaos login');
        const login = page.getByRole('dialog', { name: 'Log in to the platform' });
        const [secure] = await Promise.all([
          page.waitForEvent('popup'),
          login.getByRole('button', { name: 'Log in on a secure page' }).click(),
        ]);
        await secure.getByLabel('Email').fill(owner.email);
        await secure.getByLabel('Password').fill(owner.password);
        await secure.getByRole('button', { name: 'Log in', exact: true }).click();
        await secure.getByRole('heading', { name: 'You are logged in' }).waitFor();
        // The login window in the page ends where the login began: bob belongs to several teams.
        const picked = page.getByRole('dialog', { name: 'Choose a team' });
        await picked.waitFor({ timeout: waitMs });
        expect(await login.isVisible()).toBe(false);
        await picked.getByRole('button', { name: 'Cancel' }).click();
        await picked.waitFor({ state: 'detached' });

        // Still in #general: the sidebar says a direct message is waiting.
        await expect
          .poll(() => directLink.getAttribute('aria-label'), { timeout: waitMs })
          .toBe('Faultline, direct messages, 1 unread');
        expect(await page.locator('#dm-unread').textContent()).toBe('1');
        if (narrow)
          expect(await page.locator('#sidebar-open').getAttribute('aria-label')).toBe('Conversations, 1 unread');
        await openSidebar();
        await directLink.click();
        await expect.poll(() => page.locator('#title').innerText()).toBe('Faultline');
        const confirmation = page
          .locator('#timeline > article.message')
          .filter({ hasText: `Logged in as ${owner.email}` });
        await confirmation.waitFor();
        expect(await confirmation.innerText()).toContain('choose the one to work in');
        // Opened, it is read; commands are typed in a channel, so the composer is not offered here.
        await expect.poll(() => page.locator('#dm-unread').isHidden()).toBe(true);
        if (narrow) expect(await page.locator('#sidebar-open').getAttribute('aria-label')).toBe('Conversations');
        expect(await page.getByRole('textbox', { name: 'Message' }).isVisible()).toBe(false);

        // Its button reaches the app as a click in the direct message: the team picker opens.
        await confirmation.getByRole('button', { name: 'Choose a team' }).click();
        const picker = page.getByRole('dialog', { name: 'Choose a team' });
        await picker.getByRole('combobox', { name: 'Team' }).selectOption({ label: 'Platform' });
        await picker.getByRole('button', { name: 'Use this team' }).click();
        const chosen = page.getByRole('dialog', { name: 'Team chosen' });
        await chosen.getByText('Now using team Platform').waitFor();
        await chosen.getByRole('button', { name: 'Done' }).click();
        await chosen.waitFor({ state: 'detached' });

        // alice's direct messages are hers: none from bob's login, nothing unread.
        await openSidebar();
        await page.getByRole('combobox', { name: 'Acting as' }).selectOption({ label: 'alice' });
        await directLink.click();
        await page.getByText('No direct messages yet').waitFor();
        expect(await page.locator('#dm-unread').isHidden()).toBe(true);

        // Back to Slack, from the login page still open: Slack's web-client address, which the page
        // answers by opening where the person was, as whom they were acting.
        const back = secure.getByRole('link', { name: 'Back to Slack' });
        expect(await back.getAttribute('href')).toBe(`${demo.playgroundUrl}client/${demo.fake.teamId}`);
        expect(await secure.getByRole('link', { name: 'Open Slack in the browser' }).count()).toBe(0);
        await back.click();
        await secure.getByText('No direct messages yet').waitFor();
        expect(new URL(secure.url()).hash).toBe('#U0ALICE/dm');
        expect(await secure.getByRole('combobox', { name: 'Acting as', includeHidden: true }).inputValue()).toBe(
          'U0ALICE',
        );
        await secure.close();

        expect(pageErrors).toEqual([]);
        expect(errorLogs).toEqual([]);
      });
    },
  );
}
