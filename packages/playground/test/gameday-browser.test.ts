import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, readmeSteps, skipNote, useDemoInBrowser } from './support/browser.ts';

/**
 * The README's game day, walked in the playground page in Chromium: the steps are read from the
 * README itself, so a step the README names that the page cannot do, or that this test does not
 * know, fails here rather than for the first person who follows it.
 */

const waitMs = 15_000;

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

/** A step of the README's game day: a command typed, or something clicked (in parentheses). */
type Step = { kind: 'command'; text: string } | { kind: 'click'; text: string };

/** The steps in the code blocks of the README's game-day section, in order. */
function gameDaySteps(markdown: string): Step[] {
  return readmeSteps(markdown, '### A game day, from start to summary').map(({ left, line }): Step => {
    if (left.startsWith('/chaos ')) return { kind: 'command', text: left };
    const clicked = /^\((.*)\)$/.exec(left);
    if (clicked) return { kind: 'click', text: clicked[1]! };
    throw new Error(`a README game-day line that is neither a command nor a click: ${line}`);
  });
}

describe("the README's game-day steps", () => {
  it('are found: a start, attacks, a halt, a note, a ticket, status and an end', () => {
    const texts = gameDaySteps(readme).map((step) => step.text);
    expect(texts[0]).toMatch(/^\/chaos gameday start \S/);
    expect(texts.filter((text) => text.startsWith('/chaos attack ')).length).toBeGreaterThanOrEqual(2);
    for (const wanted of [
      /Halt on the \w+ card/,
      /^\/chaos note /,
      /File ticket on the \w+ card/,
      /^\/chaos gameday status$/,
      /^\/chaos gameday end$/,
    ]) {
      expect(texts.some((text) => wanted.test(text))).toBe(true);
    }
  });
});

describe.skipIf(!hasChromium)(skipNote("the README's game day in a browser"), { timeout: 120_000 }, () => {
  const playground = useDemoInBrowser({ dataDirPrefix: 'faultline-gameday-browser-', waitMs });
  const { run, channelMessages, pageErrors, errorLogs } = playground;
  const ephemeral = (text: string | RegExp) => playground.ephemerals().filter({ hasText: text }).last();
  /** The attack card of a type (its header reads "cpu attack · …"). */
  const attackCard = (type: string) => playground.attackCard(`${type} attack ·`);

  /** Opens a message's thread (once) and gives its replies. */
  async function threadOf(message: Locator): Promise<Locator> {
    const toggle = message.locator(':scope > .message-body > .thread-toggle');
    if (!(await toggle.innerText()).includes('Hide replies')) await toggle.click();
    return message.locator(':scope > .message-body > .thread');
  }

  it('walks every step, and the card, the timeline and the summary show what happened', async () => {
    const { demo, page } = playground;
    // The README's quick start: log in as the owner and choose the team Platform.
    await playground.logInAsOwner('U0ALICE/C0GAMEDAY', 'Platform');

    const steps = gameDaySteps(readme);
    const guids = new Map<string, string>();
    let dayTitle = '';
    let noteText = '';
    let gameCard: Locator | undefined;
    for (const step of steps) {
      const text = step.text;
      if (step.kind === 'command' && text.startsWith('/chaos gameday start ')) {
        dayTitle = text.slice('/chaos gameday start '.length);
        await run(text);
        gameCard = channelMessages().filter({ hasText: `Game day: ${dayTitle}` });
        await gameCard.waitFor();
        expect(await gameCard.innerText()).toMatch(/Facilitated by @alice/);
        await gameCard.getByRole('button', { name: 'Halt all' }).waitFor();
        await gameCard.getByRole('button', { name: 'End game day' }).waitFor();
      } else if (step.kind === 'command' && text.startsWith('/chaos attack ')) {
        const type = text.split(/\s+/)[2]!;
        const before = demo.sim.state.attacks.size;
        await run(text);
        if (!/\s--yes\b/.test(text)) {
          const preview = ephemeral(new RegExp(`${type}[\\s\\S]*Start`));
          await preview.getByRole('button', { name: 'Start', exact: true }).click();
        }
        await expect.poll(() => demo.sim.state.attacks.size, { timeout: waitMs }).toBe(before + 1);
        const attack = [...demo.sim.state.attacks.values()].at(-1)!;
        expect(attack.type).toBe(type);
        guids.set(type, attack.guid);
        await attackCard(type).filter({ hasText: attack.guid }).waitFor();
      } else if (step.kind === 'click' && /Halt on the (\w+) card/.test(text)) {
        const type = /Halt on the (\w+) card/.exec(text)![1]!;
        await attackCard(type).getByRole('button', { name: 'Halt', exact: true }).click();
        await attackCard(type)
          .getByText(/Halt requested by @alice/)
          .waitFor();
        // Past the platform's halting stages, so the summary can say how it ended.
        await expect
          .poll(() => demo.sim.state.attacks.get(guids.get(type)!)?.halt !== undefined, { timeout: waitMs })
          .toBe(true);
        demo.sim.clock.advance(10_000);
      } else if (step.kind === 'command' && text.startsWith('/chaos note ')) {
        // `<id>` is the first attack's, as the README says.
        const [firstType, firstGuid] = [...guids][0]!;
        noteText = text.replace(/^\/chaos note <id> /, '');
        await run(text.replace('<id>', firstGuid));
        await attackCard(firstType).getByText(noteText).waitFor();
      } else if (step.kind === 'click' && /File ticket on the (\w+) card/.test(text)) {
        const type = /File ticket on the (\w+) card/.exec(text)![1]!;
        await attackCard(type).getByRole('button', { name: 'File ticket' }).click();
        const form = page.getByRole('dialog', { name: /ticket/i });
        await expect
          .poll(async () => form.getByRole('textbox', { name: /summary/i }).inputValue(), { timeout: waitMs })
          .toContain(type);
        await form.getByRole('combobox', { name: 'Priority' }).selectOption({ label: 'High' });
        await form.getByRole('combobox', { name: 'Environment' }).selectOption({ label: 'Production' });
        await form.getByRole('button', { name: /file/i }).click();
        const filed = page.getByRole('dialog', { name: 'Ticket filed' });
        await filed.waitFor();
        await filed.getByRole('button').first().click();
        await filed.waitFor({ state: 'detached' });
      } else if (step.kind === 'command' && text === '/chaos gameday status') {
        // The answer comes after the ack: until then the last "Game day …" message is the start's.
        const before = await playground.ephemerals().count();
        await run(text);
        await expect.poll(() => playground.ephemerals().count(), { timeout: waitMs }).toBeGreaterThan(before);
        const status = ephemeral(`Game day ${dayTitle}`);
        expect(await status.innerText()).toContain('running');
      } else if (step.kind === 'command' && text === '/chaos gameday end') {
        await run(text);
        const warning = ephemeral('still running');
        await warning.waitFor();
        // The first attack runs still; the halted one has ended.
        const warned = await warning.innerText();
        expect(warned).toContain(guids.get('cpu')!);
        expect(warned).not.toContain(guids.get('latency')!);
        for (const name of ['Halt all and end', 'End anyway', 'Cancel'])
          await warning.getByRole('button', { name, exact: true }).waitFor();
      } else if (step.kind === 'click' && text === 'Halt all and end') {
        await ephemeral('still running').getByRole('button', { name: 'Halt all and end' }).click();
        await channelMessages()
          .filter({ hasText: `Game day summary: ${dayTitle}` })
          .waitFor();
      } else {
        throw new Error(`the README's game day has a step this test does not walk: ${text}`);
      }
    }

    // The card: ended, its buttons gone.
    const card = gameCard!;
    await card.getByText(/Ended .*after/).waitFor();
    expect(await card.getByRole('button', { name: 'End game day' }).count()).toBe(0);

    // The timeline, in the card's thread.
    const ticketKey = demo.sim.state.trackerIssues.at(-1)!.key;
    const thread = await threadOf(card);
    await thread.getByText(ticketKey).waitFor();
    const timeline = await thread.innerText();
    expect(timeline).toMatch(/started cpu/);
    expect(timeline).toMatch(/started latency/);
    expect(timeline).toMatch(/halted the latency/);
    expect(timeline).toContain(noteText);

    // The summary: each attack's final outcome (the cpu attack's once its halt is done), who
    // halted it, the note, the ticket, and the game day's own ticket button.
    demo.sim.clock.advance(10_000);
    const summary = channelMessages().filter({ hasText: `Game day summary: ${dayTitle}` });
    await expect
      .poll(() => summary.innerText(), { timeout: waitMs })
      .toMatch(/cpu[^\n]*User Halted[^\n]*halted by @alice/);
    const words = await summary.innerText();
    expect(words).toMatch(/latency[^\n]*User Halted[^\n]*halted by @alice/);
    expect(words).not.toMatch(/not over yet/);
    expect(words).toContain(noteText);
    expect(words).toContain(ticketKey);
    await summary.getByRole('button', { name: 'File ticket for the game day' }).waitFor();

    await page.screenshot({ path: join(tmpdir(), 'faultline-gameday.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });
});
