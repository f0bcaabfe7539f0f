import { describe, expect, it } from 'vitest';
import { hasChromium, skipNote, useDemoInBrowser } from './support/browser.ts';

/**
 * A target that ignores halts, set in the page's Simulator panel, in Chromium: a halt of an
 * attack on it is not verified (the card says so after the bot's halt check, and the halter is
 * told by direct message), and once the target takes halts again, Halt again verifies it.
 * The platform's stages and the bot's minute are simulated time: the test moves the clock on.
 */

const waitMs = 20_000;
const resisting = 'platform-web-2';

describe.skipIf(!hasChromium)(skipNote('a target that ignores halts, in a browser'), { timeout: 120_000 }, () => {
  const playground = useDemoInBrowser({ dataDirPrefix: 'faultline-resisting-browser-', waitMs });
  const { run, ephemerals, attackCard, pageErrors, errorLogs } = playground;

  it('makes a halt not verified from the panel, then Halt again verifies it once the target takes halts', async () => {
    const { demo, page } = playground;
    await playground.logInAsOwner('U0ALICE/C0GENERAL', 'Platform');
    await run(`/chaos attack cpu -l 600 --target-hosts platform-web-1,${resisting}`);
    const before = demo.sim.state.attacks.size;
    await ephemerals().getByRole('button', { name: 'Start', exact: true }).last().click();
    await expect.poll(() => demo.sim.state.attacks.size, { timeout: waitMs }).toBe(before + 1);
    const guid = [...demo.sim.state.attacks.values()].at(-1)!.guid;
    const card = attackCard(guid);
    await card.waitFor();
    demo.sim.clock.advance(10_000);

    // The Simulator panel: the target set to ignore halts.
    const panel = page.getByRole('region', { name: 'Simulator' });
    await panel.getByText('Targets (halts)').click();
    const toggle = panel.getByRole('combobox', { name: `${resisting} (Platform)` });
    await toggle.selectOption('ignores halts');
    await expect.poll(() => demo.sim.state.deafTargets.has(resisting), { timeout: waitMs }).toBe(true);

    await card.getByRole('button', { name: 'Halt', exact: true }).click();
    await expect.poll(() => demo.sim.state.attacks.get(guid)!.timeline.haltedAt, { timeout: waitMs }).toBeDefined();
    demo.sim.clock.advance(5_000);
    await card.getByText('Halt sent: 1 of 2 targets stopped so far').waitFor();
    // A minute on, the bot's next check finds the target still running.
    demo.sim.clock.advance(61_000);
    await card
      .getByText(`Halt not verified: 1 of 2 targets stopped; still running a minute after the halt: ${resisting}`)
      .waitFor();
    expect(await card.getByRole('button', { name: 'Halt again' }).count()).toBe(1);

    // Set back in the panel; Halt again from the halter's direct message reaches it this time.
    await toggle.selectOption('takes halts');
    await expect.poll(() => demo.sim.state.deafTargets.has(resisting), { timeout: waitMs }).toBe(false);
    await page.locator('#dm-link').click();
    const told = page.locator('#timeline > article.message').filter({ hasText: `Your halt of the cpu attack ${guid}` });
    await told.getByRole('button', { name: 'Halt again' }).click();
    await expect
      .poll(() => demo.sim.state.attacks.get(guid)!.timeline.holdouts?.get(1), { timeout: waitMs })
      .toBeDefined();
    demo.sim.clock.advance(5_000);
    await page.getByRole('button', { name: '# general' }).click();
    await card.getByText('Halt verified: 2 of 2 targets stopped').waitFor();
    await expect.poll(() => card.getByRole('button', { name: 'Halt again' }).count(), { timeout: waitMs }).toBe(0);

    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });
});
