import { describe, expect, it } from 'vitest';
import { hasChromium, skipNote, useDemoInBrowser } from './support/browser.ts';

/**
 * The page's Workflows panel in Chromium: "Freeze chaos" run as the person acting, as a workflow
 * would run it, through the fake Slack's function_executed and the bot's completion.
 */
const waitMs = 20_000;

describe.skipIf(!hasChromium)(skipNote('the Workflows panel in a browser'), { timeout: 120_000 }, () => {
  const playground = useDemoInBrowser({ dataDirPrefix: 'faultline-workflows-browser-', waitMs });

  it('runs Freeze chaos as the person chosen: the team is frozen, its attack halted, and the run shows how many; a failed run names its channel', async () => {
    const { demo, page } = playground;
    await playground.logInAsOwner('U0ALICE/C0GENERAL', 'Platform');
    const payments = demo.sim.seed.teams.payments.id;
    const running = demo.sim.createAttackDirectly(payments, { type: 'cpu', args: ['-l', '300'] });

    const panel = page.getByRole('region', { name: 'Workflows' });
    await panel.getByRole('combobox', { name: 'Step' }).selectOption({ label: 'Freeze chaos' });
    await panel.getByRole('textbox', { name: 'Team' }).fill('Payments');
    await panel.getByRole('textbox', { name: 'Reason' }).fill('checkout incident');
    await panel.getByRole('button', { name: 'Run step' }).click();

    const runs = panel.getByRole('list', { name: 'Step runs' });
    await runs.getByText('Freeze chaos as alice completed').waitFor();
    expect(await runs.locator('li').first().textContent()).toMatch(
      /^Freeze chaos as alice completed \(scope: team · team: Payments · since: \S+ · halted_count: 1\)$/,
    );
    expect(demo.sim.state.attacks.get(running)!.halt).toEqual(
      expect.objectContaining({ reason: 'frozen: checkout incident' }),
    );

    // The same step as bob, who has not logged in: it fails, saying how to get in.
    await page.getByRole('combobox', { name: 'Acting as' }).selectOption({ label: 'bob' });
    await panel.getByRole('textbox', { name: 'Reason' }).fill('second thoughts');
    await panel.getByRole('button', { name: 'Run step' }).click();
    await runs.getByText(/^Freeze chaos as bob failed: .*not logged in to Faultline/).waitFor();

    // A step's error names its channel as Slack shows it, not by id.
    await page.getByRole('combobox', { name: 'Acting as' }).selectOption({ label: 'alice' });
    await panel.getByRole('combobox', { name: 'Step' }).selectOption({ label: 'End game day' });
    await panel.getByRole('combobox', { name: 'Channel' }).selectOption({ label: '#gameday' });
    await panel.getByRole('button', { name: 'Run step' }).click();
    await runs
      .getByText('End game day as alice failed: No game day runs in #gameday, so there is nothing to end.')
      .waitFor();

    expect(playground.pageErrors).toEqual([]);
    expect(playground.errorLogs).toEqual([]);
  });
});
