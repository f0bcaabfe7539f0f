import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { startDemo, type Demo } from '../../src/demo.ts';

/** Debian's Chromium, which CI installs; the browser tests skip where it is missing. */
export const chromiumPath = '/usr/bin/chromium';
export const hasChromium = existsSync(chromiumPath);

/**
 * The steps of a README walkthrough: each line of the code blocks under `heading`, as what it
 * does (left of the arrow or the wide gap, where the right says what follows) and the whole line.
 */
export function readmeSteps(markdown: string, heading: string): { left: string; line: string }[] {
  const start = markdown.indexOf(heading);
  if (start < 0) throw new Error(`the README has no section “${heading}”`);
  const next = markdown.indexOf('\n#', start + 4);
  const section = markdown.slice(start, next < 0 ? undefined : next);
  const blocks = [...section.matchAll(/```\n([\s\S]*?)```/g)].map((match) => match[1]!);
  return blocks
    .flatMap((block) =>
      block
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean),
    )
    .map((line) => ({ left: line.split(/\s{2,}→|\s{2,}/)[0]!.trim(), line }));
}

/** A step of a README walk: a command typed, or something done in the page (the line's left, in parentheses). */
export type WalkStep = { kind: 'command' | 'action'; text: string; line: string };

/** The steps of a README walk, as {@link readmeSteps} finds them, each a command or an action in the page. */
export function walkSteps(markdown: string, heading: string): WalkStep[] {
  return readmeSteps(markdown, heading).map(({ left, line }): WalkStep => {
    if (left.startsWith('/chaos ')) return { kind: 'command', text: left, line };
    // An action is the parenthesis the line opens with, parentheses inside it included.
    let depth = 0;
    const end = line.startsWith('(')
      ? [...line].findIndex((char) => (depth += char === '(' ? 1 : char === ')' ? -1 : 0) === 0)
      : -1;
    if (end > 0) return { kind: 'action', text: line.slice(1, end), line };
    throw new Error(`a line of the README's “${heading}” that is neither a command nor an action in the page: ${line}`);
  });
}

/** The README, as the walks read it. */
export const readme = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');

/** A browser suite's title, saying how to get Chromium where the suite is skipped for want of it. */
export function skipNote(title: string): string {
  return hasChromium ? title : `${title} (skipped: ${chromiumPath} is missing; apt-get install chromium)`;
}

export interface DemoInBrowserOptions {
  /** Begins the name of the demo's temporary data directory, so a leftover one says whose it is. */
  dataDirPrefix: string;
  /** Bounds every wait on the page, and run()'s wait for the composer. */
  waitMs: number;
  viewport?: { width: number; height: number };
}

/** The demo and its playground page in Chromium, for the tests of one suite. */
export interface DemoInBrowser {
  /** There once the suite's beforeAll has run. */
  readonly demo: Demo;
  readonly page: Page;
  /** What the page threw or logged as a console error; a test that expects none checks it is empty. */
  readonly pageErrors: string[];
  /** The demo's log lines at error or fatal. */
  readonly errorLogs: string[];
  /** Types a command into the composer and sends it. */
  run(command: string): Promise<void>;
  /** Opens the page as a person in a channel ("U0ALICE/C0GAMEDAY") and logs in as the seed's owner with the team chosen. */
  logInAsOwner(at: string, team: string): Promise<void>;
  /** The channel's messages in the timeline, ephemeral ones left out. */
  channelMessages(): Locator;
  /** The messages in the timeline that only the person acting sees. */
  ephemerals(): Locator;
  /** An attack's card: a channel message with a Details button, holding the text (its guid, or "cpu attack ·"). */
  attackCard(text: string): Locator;
  /** Opens a message's thread (once it has replies) and gives the thread. */
  threadOf(message: Locator): Promise<Locator>;
  /** Runs an attack command and presses Start on its preview; gives the started attack's guid. */
  startAttack(command: string): Promise<string>;
  /** Opens the acting person's direct messages with the app (the sidebar's Direct messages → Faultline). */
  openDirectMessages(): Promise<void>;
  /**
   * Stops the demo as Ctrl-C does and starts it again on the same data directory and address, as
   * ./run.sh again does; `whileStopped` runs in between, the page still open.
   */
  restart(whileStopped?: () => Promise<void>): Promise<void>;
}

/**
 * Starts the demo in a temporary data directory and opens a page in Chromium for the suite that
 * calls it (in its beforeAll, closing both in its afterAll), collecting the page's errors and the
 * demo's error logs so each test can say there were none.
 */
export function useDemoInBrowser(options: DemoInBrowserOptions): DemoInBrowser {
  const { dataDirPrefix, waitMs, viewport = { width: 1280, height: 900 } } = options;
  let demo: Demo | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const pageErrors: string[] = [];
  const errorLogs: string[] = [];
  let dataDir = '';
  let logDestination: Writable | undefined;

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
    logDestination = destination;
    dataDir = mkdtempSync(join(tmpdir(), dataDirPrefix));
    demo = await startDemo({ dataDir, port: 0, logDestination });
    // launch() gives the browser a fresh, throwaway profile directory.
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage({ viewport });
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

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the demo and its page start in the suite's beforeAll");
    return value;
  };
  const channelMessages = () => started(page).locator('#timeline > article.message:not(.ephemeral)');

  async function run(command: string): Promise<void> {
    const composer = started(page).getByRole('textbox', { name: 'Message' });
    await composer.fill(command);
    await composer.press('Enter');
    // The composer empties once the app took the command.
    await expect.poll(() => composer.inputValue(), { timeout: waitMs }).toBe('');
  }

  async function logInAsOwner(at: string, team: string): Promise<void> {
    const { sim, playgroundUrl } = started(demo);
    const { owner } = sim.seed.users;
    const tab = started(page);
    await tab.goto(`${playgroundUrl}#${at}`);
    await tab.getByText('Nothing here yet').waitFor();
    await run('/chaos login');
    const login = tab.getByRole('dialog', { name: 'Log in to the platform' });
    await login.getByRole('textbox', { name: 'Email' }).fill(owner.email);
    await login.getByRole('textbox', { name: 'Password' }).fill(owner.password);
    await login.getByRole('button', { name: 'Log in', exact: true }).click();
    const picker = tab.getByRole('dialog', { name: 'Choose a team' });
    await picker.getByRole('combobox', { name: 'Team' }).selectOption({ label: team });
    await picker.getByRole('button', { name: 'Use this team' }).click();
    const done = tab.getByRole('dialog', { name: 'Logged in' });
    await done.getByRole('button', { name: 'Done' }).click();
    await done.waitFor({ state: 'detached' });
  }

  async function threadOf(message: Locator): Promise<Locator> {
    const toggle = message.locator(':scope > .message-body > .thread-toggle');
    await expect.poll(() => toggle.count(), { timeout: waitMs }).toBe(1);
    if (!(await toggle.innerText()).includes('Hide replies')) await toggle.click();
    return message.locator(':scope > .message-body > .thread');
  }

  async function startAttack(command: string): Promise<string> {
    const { sim } = started(demo);
    const type = command.split(/\s+/)[2]!;
    const before = sim.state.attacks.size;
    await run(command);
    const preview = started(page)
      .locator('#timeline > article.message.ephemeral')
      .filter({ hasText: type })
      .filter({ has: started(page).getByRole('button', { name: 'Start', exact: true }) })
      .last();
    await preview.getByRole('button', { name: 'Start', exact: true }).click();
    await expect.poll(() => sim.state.attacks.size, { timeout: waitMs }).toBe(before + 1);
    const attack = [...sim.state.attacks.values()].at(-1)!;
    expect(attack.type).toBe(type);
    return attack.guid;
  }

  async function openDirectMessages(): Promise<void> {
    const tab = started(page);
    await tab.locator('#dm-link').click();
    await expect.poll(() => tab.locator('#title').innerText(), { timeout: waitMs }).toBe('Faultline');
  }

  async function restart(whileStopped?: () => Promise<void>): Promise<void> {
    const stopped = started(demo);
    const port = Number(new URL(stopped.playgroundUrl).port);
    await stopped.stop();
    demo = undefined;
    await whileStopped?.();
    demo = await startDemo({ dataDir, port, logDestination: started(logDestination) });
  }

  return {
    get demo() {
      return started(demo);
    },
    get page() {
      return started(page);
    },
    pageErrors,
    errorLogs,
    run,
    logInAsOwner,
    channelMessages,
    ephemerals: () => started(page).locator('#timeline > article.message.ephemeral'),
    attackCard: (text) =>
      channelMessages()
        .filter({ hasText: text })
        .filter({ has: started(page).getByRole('button', { name: 'Details' }) }),
    threadOf,
    startAttack,
    openDirectMessages,
    restart,
  };
}
