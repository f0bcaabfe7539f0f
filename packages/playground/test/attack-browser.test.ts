import { describe, expect, it } from 'vitest';
import { hasChromium, readme, skipNote, useDemoInBrowser, walkSteps } from './support/browser.ts';

/**
 * The README's first demo walk, "An attack, from start to halt", in the playground page in
 * Chromium: the attack started from its preview, a note and a ticket in its card's thread, its
 * halt read back until every target stopped, and `show`. The steps are read from the README, so
 * a step it names that the page does not show fails here. The platform's stages are simulated
 * time: the test moves the simulator's clock on rather than wait.
 */

const waitMs = 20_000;
const heading = '### An attack, from start to halt';

describe("the README's attack walk", () => {
  it('starts an attack, notes it, files a ticket, halts it and shows it', () => {
    const texts = walkSteps(readme, heading).map((step) => step.text);
    expect(texts[0]).toMatch(/^\/chaos attack cpu .*--target-tags role=web$/);
    for (const wanted of [
      /^\/chaos note <id> \S/,
      /^File ticket on the card/,
      /^Halt on the card$/,
      /^\/chaos show <id>$/,
    ])
      expect(texts.some((text) => wanted.test(text))).toBe(true);
  });
});

describe.skipIf(!hasChromium)(skipNote("the README's attack walk in a browser"), { timeout: 120_000 }, () => {
  const playground = useDemoInBrowser({ dataDirPrefix: 'faultline-attack-browser-', waitMs });
  const { run, ephemerals, attackCard, threadOf, pageErrors, errorLogs } = playground;

  it('walks every step, and the card, its thread and show say what the README says', async () => {
    const { demo, page } = playground;
    await playground.logInAsOwner('U0ALICE/C0GAMEDAY', 'Platform');
    const platformHosts = demo.sim.state.hostsOf(demo.sim.seed.teams.platform.id);
    const web = platformHosts.filter((host) => host.tags['role'] === 'web').map((host) => host.id);

    let id = '';
    let card = attackCard('cpu attack ·');
    for (const step of walkSteps(readme, heading)) {
      const { kind, text } = step;
      if (kind === 'command' && text.startsWith('/chaos attack ')) {
        const guid = await playground.startAttack(text);
        card = attackCard(guid);
        await card.waitFor();
        // `<id>`, at the foot of the card.
        const foot = card.locator(':scope > .message-body > .blocks > .bk-context').last();
        id = /^Attack (\S+)/.exec(await foot.innerText())?.[1] ?? '';
        expect(id).toBe(guid);
        // Its stage, live: the card follows the platform's stages to Running.
        demo.sim.clock.advance(10_000);
        const header = card.locator(':scope > .message-body > .blocks > .bk-header');
        await expect.poll(() => header.innerText(), { timeout: waitMs }).toBe('cpu attack · Running');
      } else if (kind === 'command' && text.startsWith('/chaos note <id> ')) {
        const note = text.slice('/chaos note <id> '.length);
        await run(text.replace('<id>', id));
        const thread = await threadOf(card);
        await thread.getByText(note).waitFor();
      } else if (kind === 'action' && text.startsWith('File ticket on the card')) {
        await card.getByRole('button', { name: 'File ticket' }).click();
        const form = page.getByRole('dialog', { name: /ticket/i });
        // Prefilled: the summary names the attack.
        await expect
          .poll(() => form.getByRole('textbox', { name: /summary/i }).inputValue(), { timeout: waitMs })
          .toContain('cpu');
        await form.getByRole('combobox', { name: 'Priority' }).selectOption({ label: 'High' });
        await form.getByRole('combobox', { name: 'Environment' }).selectOption({ label: 'Production' });
        await form.getByRole('button', { name: /file/i }).click();
        const filed = page.getByRole('dialog', { name: 'Ticket filed' });
        await filed.waitFor();
        await filed.getByRole('button').first().click();
        await filed.waitFor({ state: 'detached' });
        const key = demo.sim.state.trackerIssues.at(-1)!.key;
        const thread = await threadOf(card);
        await thread.getByText(key).waitFor();
      } else if (kind === 'action' && text === 'Halt on the card') {
        await card.getByRole('button', { name: 'Halt', exact: true }).click();
        await card.getByText('Halt requested by @alice').waitFor();
        await expect.poll(() => demo.sim.state.attacks.get(id)!.timeline.haltedAt, { timeout: waitMs }).toBeDefined();
        // Past the platform's halting stages: the bot reads back every target.
        demo.sim.clock.advance(10_000);
        await card.getByText(`Halt verified: ${web.length} of ${web.length} targets stopped`).waitFor();
        expect(step.line).toContain(`Halt verified: ${web.length} of ${web.length} targets stopped`);
        await expect
          .poll(() => card.getByRole('button', { name: 'Halt', exact: true }).count(), { timeout: waitMs })
          .toBe(0);
      } else if (kind === 'command' && text === '/chaos show <id>') {
        const shown = ephemerals()
          .filter({ hasText: `Attack ${id}` })
          .filter({ hasText: 'Executions' });
        await run(text.replace('<id>', id));
        await shown.waitFor();
        const words = await shown.innerText();
        expect(words).toMatch(/cpu attack · User Halted/);
        expect(words).toContain(`Executions (${web.length})`);
        for (const host of web) expect(words).toContain(host);
        expect(words).toContain('1 ticket filed for this attack');
      } else {
        throw new Error(`the README's attack walk has a step this test does not walk: ${step.line}`);
      }
    }

    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });
});
