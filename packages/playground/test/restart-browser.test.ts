import { describe, expect, it } from 'vitest';
import { hasChromium, readme, skipNote, useDemoInBrowser, walkSteps } from './support/browser.ts';

/**
 * The README's "A restart keeps the demo's state", walked in the playground page in Chromium: the
 * demo is stopped and started again on the same data directory and address while its page stays
 * open, as someone presses Ctrl-C and runs ./run.sh again. The page says the demo stopped,
 * reconnects by itself and shows what it showed; the login and the game day go on.
 */

const waitMs = 15_000;
const heading = "### A restart keeps the demo's state";

describe("the README's restart walk", () => {
  it('starts a game day, restarts the demo, and ends the game day', () => {
    const steps = walkSteps(readme, heading);
    expect(steps.map((step) => step.kind)).toEqual(['command', 'action', 'command']);
    expect(steps[0]!.text).toMatch(/^\/chaos gameday start \S/);
    expect(steps[1]!.text).toMatch(/Ctrl-C .*\.\/run\.sh again/);
    expect(steps[2]!.text).toBe('/chaos gameday end');
  });
});

describe.skipIf(!hasChromium)(skipNote("the README's restart walk in a browser"), { timeout: 90_000 }, () => {
  const playground = useDemoInBrowser({ dataDirPrefix: 'faultline-restart-browser-', waitMs });
  const { run, channelMessages, ephemerals, pageErrors, errorLogs } = playground;

  it('reconnects by itself, still logged in, the game day still running and the history kept, then ends it', async () => {
    const { page } = playground;
    const { owner } = playground.demo.sim.seed.users;
    await playground.logInAsOwner('U0ALICE/C0GAMEDAY', 'Platform');

    let title = '';
    const dayCard = () => channelMessages().filter({ hasText: `Game day: ${title}` });
    for (const step of walkSteps(readme, heading)) {
      if (step.kind === 'command' && step.text.startsWith('/chaos gameday start ')) {
        title = step.text.slice('/chaos gameday start '.length);
        await run(step.text);
        await dayCard().getByRole('button', { name: 'End game day' }).waitFor();
      } else if (step.kind === 'action' && step.text.startsWith('Ctrl-C')) {
        const shownBefore = await channelMessages().count();
        const lost = page.getByRole('status').filter({ hasText: 'Lost the connection' });
        await playground.restart(() => lost.waitFor());
        // Reconnected by itself: the notice goes, the channel's history is there as it was.
        await lost.waitFor({ state: 'hidden' });
        await dayCard().getByRole('button', { name: 'End game day' }).waitFor();
        expect(await channelMessages().count()).toBe(shownBefore);
        // Still logged in, as the same person in the same team.
        const whoami = ephemerals().filter({ hasText: 'Current team' });
        await run('/chaos whoami');
        await expect.poll(() => whoami.last().innerText(), { timeout: waitMs }).toContain(owner.email);
        expect(await whoami.last().innerText()).toMatch(/Current team\s+Platform/);
        // The game day still running, in the restarted bot.
        const status = ephemerals().filter({ hasText: `Game day ${title}` });
        const statusBefore = await status.count();
        await run('/chaos gameday status');
        await expect.poll(() => status.count(), { timeout: waitMs }).toBeGreaterThan(statusBefore);
        expect(await status.last().innerText()).toContain('running');
      } else if (step.kind === 'command' && step.text === '/chaos gameday end') {
        await run(step.text);
        await channelMessages()
          .filter({ hasText: `Game day summary: ${title}` })
          .waitFor();
        await dayCard()
          .getByText(/Ended .*after/)
          .waitFor();
        expect(await dayCard().getByRole('button', { name: 'End game day' }).count()).toBe(0);
      } else {
        throw new Error(`the README's restart walk has a step this test does not walk: ${step.line}`);
      }
    }

    // Chromium notes each poll the stopped demo refused; nothing else went wrong in the page.
    expect(pageErrors.filter((error) => !error.endsWith('net::ERR_CONNECTION_REFUSED'))).toEqual([]);
    expect(errorLogs).toEqual([]);
  });
});
