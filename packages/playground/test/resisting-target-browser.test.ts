import { describe, expect, it } from 'vitest';
import { hasChromium, readme, skipNote, useDemoInBrowser, walkSteps } from './support/browser.ts';

/**
 * The README's "A target that resists a halt, in the demo", walked in the playground page in
 * Chromium: a target set to ignore halts in the Simulator panel keeps running after a halt, so a
 * minute on the card says the halt is not verified and offers Halt again, as its thread and the
 * halter's direct messages do; set back, Halt again verifies it and the thread says so. The
 * platform's stages and the bot's minute are simulated time: the test moves the clock on.
 */

const waitMs = 20_000;
const heading = '### A target that resists a halt, in the demo';

/** "Simulator panel: Targets (halts) → platform-web-1 → ignores halts": the target and its setting. */
const panelStep = (text: string) =>
  /^Simulator panel: Targets \(halts\) → (\S+) → (ignores halts|takes halts)$/.exec(text);

/** The page's words a step quotes ("Halt not verified: … platform-web-1"), "…" standing for anything. */
const quoted = (line: string) =>
  [...line.matchAll(/"([^"]+)"/g)].map(
    ([, words]) =>
      new RegExp(
        words!
          .split('…')
          .map((part) => part.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*'),
      ),
  );

describe("the README's resisting-target walk", () => {
  it('starts an attack on one host, makes it ignore halts, halts, sets it back and halts again', () => {
    const steps = walkSteps(readme, heading);
    expect(steps.map((step) => step.text)).toEqual([
      expect.stringMatching(/^\/chaos attack cpu .*--target-hosts \S+$/),
      expect.stringMatching(/ → ignores halts$/),
      'Halt on the card',
      expect.stringMatching(/ → takes halts$/),
      'Halt again on the card',
    ]);
    expect(quoted(steps[2]!.line)).toHaveLength(1);
    expect(quoted(steps[4]!.line)).toHaveLength(1);
  });
});

describe.skipIf(!hasChromium)(skipNote("the README's resisting-target walk in a browser"), { timeout: 120_000 }, () => {
  const playground = useDemoInBrowser({ dataDirPrefix: 'faultline-resisting-browser-', waitMs });
  const { attackCard, threadOf, pageErrors, errorLogs } = playground;

  it('walks every step: not verified with Halt again on the card, in the thread and in direct messages, then verified', async () => {
    const { demo, page } = playground;
    await playground.logInAsOwner('U0ALICE/C0GAMEDAY', 'Platform');
    const panel = page.getByRole('region', { name: 'Simulator' });

    let guid = '';
    let host = '';
    for (const step of walkSteps(readme, heading)) {
      const { kind, text, line } = step;
      const card = attackCard(guid || 'cpu attack ·');
      // The card's own blocks, its thread left out.
      const own = card.locator(':scope > .message-body > .blocks');
      const setting = panelStep(text);
      if (kind === 'command' && text.startsWith('/chaos attack ')) {
        host = /--target-hosts (\S+)/.exec(text)![1]!;
        guid = await playground.startAttack(text);
        await attackCard(guid).waitFor();
        // Past the platform's starting stages, so the host runs it.
        demo.sim.clock.advance(10_000);
      } else if (kind === 'action' && setting) {
        const [, target, choice] = setting;
        expect(target).toBe(host);
        const toggle = panel.getByRole('combobox', { name: `${target} (Platform)` });
        if (!(await toggle.isVisible())) await panel.getByText('Targets (halts)').click();
        await toggle.selectOption(choice!);
        await expect
          .poll(() => demo.sim.state.deafTargets.has(target!), { timeout: waitMs })
          .toBe(choice === 'ignores halts');
      } else if (kind === 'action' && text === 'Halt on the card') {
        await card.getByRole('button', { name: 'Halt', exact: true }).click();
        await card.getByText('Halt requested by @alice').waitFor();
        await expect.poll(() => demo.sim.state.attacks.get(guid)!.timeline.haltedAt, { timeout: waitMs }).toBeDefined();
        demo.sim.clock.advance(5_000);
        await card.getByText('Halt sent: 0 of 1 target stopped so far').waitFor();
        // A minute on, the bot's next check finds the host still running it.
        demo.sim.clock.advance(61_000);
        await own.getByText(quoted(line)[0]!).waitFor();
        await own.getByRole('button', { name: 'Halt again' }).waitFor();
        const warning = (await threadOf(card))
          .locator('article.message')
          .filter({ hasText: 'has not stopped every target' });
        expect(await warning.innerText()).toContain(host);
        await warning.getByRole('button', { name: 'Halt again' }).waitFor();
        await playground.openDirectMessages();
        const told = page
          .locator('#timeline > article.message')
          .filter({ hasText: `Your halt of the cpu attack ${guid}` });
        expect(await told.innerText()).toContain(host);
        await told.getByRole('button', { name: 'Halt again' }).waitFor();
        await page.getByRole('button', { name: '# gameday' }).click();
      } else if (kind === 'action' && text === 'Halt again on the card') {
        await own.getByRole('button', { name: 'Halt again' }).click();
        await expect
          .poll(() => demo.sim.state.attacks.get(guid)!.timeline.holdouts?.get(0), { timeout: waitMs })
          .toBeDefined();
        demo.sim.clock.advance(5_000);
        await own.getByText(quoted(line)[0]!).waitFor();
        await expect.poll(() => own.getByRole('button', { name: /^Halt/ }).count(), { timeout: waitMs }).toBe(0);
        const thread = await threadOf(card);
        await thread.getByText(/Halt verified: 1 of 1 target stopped/).waitFor();
      } else {
        throw new Error(`the README's resisting-target walk has a step this test does not walk: ${line}`);
      }
    }

    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });
});
