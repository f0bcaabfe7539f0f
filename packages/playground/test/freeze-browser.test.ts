import { describe, expect, it } from 'vitest';
import { hasChromium, readme, readmeSteps, skipNote, useDemoInBrowser } from './support/browser.ts';

/**
 * The README's "A freeze, in the demo", walked in the playground page in Chromium: an attack, a
 * freeze that halts it and says why on its card and in its thread, a start refused while the team
 * is frozen, and the unfreeze that lets attacks start again. The steps are read from the README.
 */

const waitMs = 20_000;
const heading = '### A freeze, in the demo';

/** The page's words a step quotes right of its arrow ("Halt requested by @alice (frozen: …)"), "…" standing for anything. */
const quoted = (line: string) =>
  [...line.slice(line.indexOf('→')).matchAll(/"([^"]+)"/g)].map(
    ([, words]) =>
      new RegExp(
        words!
          .split('…')
          .map((part) => part.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*'),
      ),
  );

describe("the README's freeze walk", () => {
  it('starts an attack, freezes with a reason, is refused a start, and unfreezes', () => {
    const steps = readmeSteps(readme, heading);
    expect(steps.map((step) => step.left)).toEqual([
      expect.stringMatching(/^\/chaos attack cpu /),
      expect.stringMatching(/^\/chaos freeze --reason "[^"]+"$/),
      expect.stringMatching(/^\/chaos attack memory /),
      '/chaos unfreeze',
    ]);
    expect(quoted(steps[1]!.line)).toHaveLength(1);
    expect(quoted(steps[2]!.line)).toHaveLength(1);
  });
});

describe.skipIf(!hasChromium)(skipNote("the README's freeze walk in a browser"), { timeout: 120_000 }, () => {
  const playground = useDemoInBrowser({ dataDirPrefix: 'faultline-freeze-browser-', waitMs });
  const { run, attackCard, channelMessages, ephemerals, threadOf, pageErrors, errorLogs } = playground;

  it('walks every step: the card and its thread say the freeze halted the attack, a start is refused, then allowed', async () => {
    const { demo } = playground;
    await playground.logInAsOwner('U0ALICE/C0GAMEDAY', 'Platform');

    let guid = '';
    let reason = '';
    let frozen = false;
    for (const { left: text, line } of readmeSteps(readme, heading)) {
      if (text.startsWith('/chaos attack ') && !frozen) {
        guid = await playground.startAttack(text);
        await attackCard(guid).waitFor();
      } else if (text.startsWith('/chaos freeze ')) {
        reason = /--reason "([^"]+)"/.exec(text)![1]!;
        await run(text);
        frozen = true;
        await channelMessages()
          .filter({ hasText: `froze attacks in Platform: ${reason}` })
          .waitFor();
        await expect
          .poll(() => demo.sim.state.attacks.get(guid)!.halt?.reason, { timeout: waitMs })
          .toBe(`frozen: ${reason}`);
        const card = attackCard(guid);
        await card.locator(':scope > .message-body > .blocks').getByText(quoted(line)[0]!).waitFor();
        const thread = await threadOf(card);
        await thread.getByText(`'s freeze halted this attack (frozen: ${reason})`, { exact: false }).waitFor();
      } else if (text.startsWith('/chaos attack ')) {
        const before = demo.sim.state.attacks.size;
        await run(text);
        await ephemerals()
          .filter({ hasText: quoted(line)[0]! })
          .waitFor();
        expect(await ephemerals().last().innerText()).toContain(reason);
        expect(demo.sim.state.attacks.size).toBe(before);
      } else if (text === '/chaos unfreeze') {
        await run(text);
        await ephemerals().filter({ hasText: 'Platform is no longer frozen' }).waitFor();
        await channelMessages().filter({ hasText: 'lifted the freeze on Platform' }).waitFor();
        frozen = false;
      } else {
        throw new Error(`the README's freeze walk has a step this test does not walk: ${line}`);
      }
    }
    expect(frozen).toBe(false);

    // The Workflows panel's Freeze chaos for Payments: nothing shows Payments in the demo's
    // channels, so the announcement comes in Direct messages; the next start there is refused.
    const panel = playground.page.getByRole('region', { name: 'Workflows' });
    const runs = panel.getByRole('list', { name: 'Step runs' });
    await panel.getByRole('combobox', { name: 'Step' }).selectOption({ label: 'Freeze chaos' });
    await panel.getByRole('textbox', { name: 'Team' }).fill('Payments');
    await panel.getByRole('textbox', { name: 'Reason' }).fill('provider outage');
    await panel.getByRole('button', { name: 'Run step' }).click();
    await runs.getByText('Freeze chaos as alice completed').waitFor();
    await playground.openDirectMessages();
    await playground.page
      .locator('#timeline > article.message')
      .filter({ hasText: 'froze attacks in Payments: provider outage' })
      .waitFor();
    await playground.page.getByRole('button', { name: '# gameday' }).click();
    await run('/chaos attack cpu -l 30 --team Payments');
    await ephemerals()
      .filter({ hasText: /Attacks in Payments are frozen by @alice since .*: provider outage/ })
      .waitFor();
    await panel.getByRole('combobox', { name: 'Step' }).selectOption({ label: 'Unfreeze chaos' });
    await panel.getByRole('textbox', { name: 'Team' }).fill('Payments');
    await panel.getByRole('button', { name: 'Run step' }).click();
    await runs.getByText('Unfreeze chaos as alice completed').waitFor();

    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });
});
