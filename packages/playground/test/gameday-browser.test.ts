import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../src/demo.ts';

/**
 * The README's game day, walked in the playground page in Chromium: the steps are read from the
 * README itself, so a step the README names that the page cannot do, or that this test does not
 * know, fails here rather than for the first person who follows it.
 */

const chromiumPath = '/usr/bin/chromium';
const hasChromium = existsSync(chromiumPath);
const title = hasChromium
  ? 'the README\'s game day in a browser'
  : `the README's game day in a browser (skipped: ${chromiumPath} is missing; apt-get install chromium)`;
const waitMs = 15_000;

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

/** A step of the README's game day: a command typed, or something clicked (in parentheses). */
type Step = { kind: 'command'; text: string } | { kind: 'click'; text: string };

/** The steps in the code blocks of the README's game-day section, in order. */
function gameDaySteps(markdown: string): Step[] {
  const start = markdown.indexOf('### A game day, from start to summary');
  if (start < 0) throw new Error('the README has no game-day section');
  const next = markdown.indexOf('\n#', start + 4);
  const section = markdown.slice(start, next < 0 ? undefined : next);
  const blocks = [...section.matchAll(/```\n([\s\S]*?)```/g)].map((match) => match[1]!);
  return blocks.flatMap((block) => block.split('\n').map((line) => line.trim()).filter(Boolean)).map((line): Step => {
    // What a step does is on the left; the right of the arrow says what follows.
    const left = line.split(/\s{2,}→|\s{2,}/)[0]!.trim();
    if (left.startsWith('/chaos ')) return { kind: 'command', text: left };
    const clicked = /^\((.*)\)$/.exec(left);
    if (clicked) return { kind: 'click', text: clicked[1]! };
    throw new Error(`a README game-day line that is neither a command nor a click: ${line}`);
  });
}

describe('the README\'s game-day steps', () => {
  it('are found: a start, attacks, a halt, a note, a ticket, status and an end', () => {
    const texts = gameDaySteps(readme).map((step) => step.text);
    expect(texts[0]).toMatch(/^\/chaos gameday start \S/);
    expect(texts.filter((text) => text.startsWith('/chaos attack ')).length).toBeGreaterThanOrEqual(2);
    for (const wanted of [/Halt on the \w+ card/, /^\/chaos note /, /File ticket on the \w+ card/, /^\/chaos gameday status$/, /^\/chaos gameday end$/]) {
      expect(texts.some((text) => wanted.test(text))).toBe(true);
    }
  });
});

describe.skipIf(!hasChromium)(title, { timeout: 120_000 }, () => {
  let demo: Demo;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const errorLogs: string[] = [];

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) {
          const level = (JSON.parse(line) as { level?: string }).level;
          if (level === 'error' || level === 'fatal') errorLogs.push(line);
        }
        done();
      },
    });
    demo = await startDemo({ dataDir: mkdtempSync(join(tmpdir(), 'faultline-gameday-browser-')), port: 0, logDestination: destination });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(waitMs);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  async function run(command: string): Promise<void> {
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill(command);
    await composer.press('Enter');
    await expect.poll(() => composer.inputValue(), { timeout: waitMs }).toBe('');
  }

  const channelMessages = () => page.locator('#timeline > article.message:not(.ephemeral)');
  const ephemeral = (text: string | RegExp) => page.locator('#timeline > article.message.ephemeral', { hasText: text }).last();
  /** The attack card of a type (its header reads "cpu attack · …"). */
  const attackCard = (type: string) => channelMessages().filter({ hasText: `${type} attack ·` }).filter({ has: page.getByRole('button', { name: 'Details' }) });

  /** Opens a message's thread (once) and gives its replies. */
  async function threadOf(message: Locator): Promise<Locator> {
    const toggle = message.locator(':scope > .message-body > .thread-toggle');
    if (!(await toggle.innerText()).includes('Hide replies')) await toggle.click();
    return message.locator(':scope > .message-body > .thread');
  }

  it('walks every step, and the card, the timeline and the summary show what happened', async () => {
    const { owner } = demo.sim.seed.users;
    await page.goto(`${demo.playgroundUrl}#U0ALICE/C0GAMEDAY`);
    await page.getByText('Nothing here yet').waitFor();
    // The README's quick start: log in as the owner and choose the team Platform.
    await run('/chaos login');
    const login = page.getByRole('dialog', { name: 'Log in to the platform' });
    await login.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await login.getByRole('textbox', { name: 'Password' }).fill(owner.password);
    await login.getByRole('button', { name: 'Log in' }).click();
    const picker = page.getByRole('dialog', { name: 'Choose a team' });
    await picker.getByRole('combobox', { name: 'Team' }).selectOption({ label: 'Platform' });
    await picker.getByRole('button', { name: 'Use this team' }).click();
    const done = page.getByRole('dialog', { name: 'Logged in' });
    await done.getByRole('button', { name: 'Done' }).click();
    await done.waitFor({ state: 'detached' });

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
        await attackCard(type).getByText(/Halt requested by @alice/).waitFor();
        // Past the platform's halting stages, so the summary can say how it ended.
        await expect.poll(() => demo.sim.state.attacks.get(guids.get(type)!)?.halt !== undefined, { timeout: waitMs }).toBe(true);
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
        await expect.poll(async () => form.getByRole('textbox', { name: /summary/i }).inputValue(), { timeout: waitMs }).toContain(type);
        await form.getByRole('combobox', { name: 'Priority' }).selectOption({ label: 'High' });
        await form.getByRole('combobox', { name: 'Environment' }).selectOption({ label: 'Production' });
        await form.getByRole('button', { name: /file/i }).click();
        const filed = page.getByRole('dialog', { name: 'Ticket filed' });
        await filed.waitFor();
        await filed.getByRole('button').first().click();
        await filed.waitFor({ state: 'detached' });
      } else if (step.kind === 'command' && text === '/chaos gameday status') {
        await run(text);
        const status = ephemeral(`Game day ${dayTitle}`);
        await status.waitFor();
        expect(await status.innerText()).toContain('running');
      } else if (step.kind === 'command' && text === '/chaos gameday end') {
        await run(text);
        const warning = ephemeral('still running');
        await warning.waitFor();
        // The first attack runs still; the halted one has ended.
        const warned = await warning.innerText();
        expect(warned).toContain(guids.get('cpu')!);
        expect(warned).not.toContain(guids.get('latency')!);
        for (const name of ['Halt all and end', 'End anyway', 'Cancel']) await warning.getByRole('button', { name, exact: true }).waitFor();
      } else if (step.kind === 'click' && text === 'Halt all and end') {
        await ephemeral('still running').getByRole('button', { name: 'Halt all and end' }).click();
        await channelMessages().filter({ hasText: `Game day summary: ${dayTitle}` }).waitFor();
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
    await expect.poll(() => summary.innerText(), { timeout: waitMs }).toMatch(/cpu[^\n]*User Halted[^\n]*halted by @alice/);
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
