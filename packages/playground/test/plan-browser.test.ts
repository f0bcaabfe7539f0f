import { readFileSync } from 'node:fs';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, readmeSteps, skipNote, useDemoInBrowser } from './support/browser.ts';

/**
 * The README's game day from a plan, walked in the playground page in Chromium: the steps are
 * read from the README itself, so the plan, its rehearsal, the countdown cards and the questions it
 * describes are what a person following it sees.
 */

const waitMs = 15_000;
/** A countdown lasts 15 s in the demo, then the next job pass (3 s) starts the step. */
const countdownMs = 40_000;

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const heading = '### A game day from a plan';

describe("the README's plan walkthrough", () => {
  it('is found: a saved attack, steps by command and form, a rehearsal, a move, a countdown, a veto, Start now, answers, an end', () => {
    const lefts = readmeSteps(readme, heading).map((step) => step.left);
    for (const wanted of [
      /^\/chaos save /,
      /^\/chaos gameday step /,
      /^\/chaos gameday start .+ --rehearsal$/,
      /^\(Add step on the game-day card: /,
      /^\/chaos gameday move /,
      /^\(Run next step on the game-day card\)$/,
      /^\(Veto on the countdown of step \d+, /,
      /^\(Start now on the countdown of step \d+\)$/,
      /^\(Held on the question of step \d+, /,
      /^\(Not held on the question of step \d+, /,
      /^\/chaos gameday end$/,
    ])
      expect(
        lefts.some((left) => wanted.test(left)),
        String(wanted),
      ).toBe(true);
  });
});

describe.skipIf(!hasChromium)(skipNote("the README's plan in a browser"), { timeout: 180_000 }, () => {
  const playground = useDemoInBrowser({ dataDirPrefix: 'faultline-plan-browser-', waitMs });
  const { run, channelMessages, threadOf, pageErrors, errorLogs } = playground;
  const ephemeral = (text: string | RegExp) => playground.ephemerals().filter({ hasText: text }).last();
  /** The countdown card of a step of the game day, not of the rehearsal before it. */
  const countdown = (step: number) =>
    channelMessages()
      .filter({ hasText: new RegExp(`Step ${step} of \\d`) })
      .filter({ hasNotText: 'REHEARSAL' })
      .last();

  it('walks every step: the plan on the card, its rehearsal, countdowns, a veto, the answers, the summary', async () => {
    const { demo, page } = playground;
    await playground.logInAsOwner('U0ALICE/C0GAMEDAY', 'Platform');
    let gameCard: Locator | undefined;
    let title = '';
    const attacks = () => demo.sim.state.attacks.size;

    /** Lets the step's attack run out on the simulator, until the question about it is asked. */
    async function question(step: number, button: string): Promise<Locator> {
      const thread = await threadOf(gameCard!);
      const asked = thread.locator('article').filter({ hasText: `Step ${step} (` });
      await expect
        .poll(
          async () => {
            demo.sim.clock.advance(20_000);
            return asked.getByRole('button', { name: button, exact: true }).count();
          },
          { timeout: waitMs },
        )
        .toBeGreaterThan(0);
      return asked;
    }

    /**
     * The README's rehearsal line: the plan's step 1 counted down by `gameday next`, told in the
     * thread as what it would hit at zero, nothing created at the platform, and a summary at the end.
     */
    async function rehearse(left: string): Promise<void> {
      const rehearsal = left.slice('/chaos gameday start '.length, -' --rehearsal'.length);
      const creates = () =>
        demo.sim.requests.filter((r) => r.method === 'POST' && /^\/(kubernetes\/)?attacks(\/new)?$/.test(r.path))
          .length;
      const [attacksBefore, createsBefore] = [attacks(), creates()];
      await run(left);
      const card = channelMessages().filter({ hasText: `REHEARSAL · Game day: ${rehearsal}` });
      await card.getByText('Plan (1 step)').waitFor();
      await run('/chaos gameday next');
      await ephemeral(/Step 1 of 1 counts down/).waitFor();
      const counting = channelMessages().filter({ hasText: 'REHEARSAL · Step 1 of 1: web-cpu' });
      expect(await counting.innerText()).toMatch(/🎭 REHEARSAL · Step 1 of 1: web-cpu: cpu on .*, starts in 1\d s/);
      expect(await counting.innerText()).toContain('nothing is created at the platform');
      // The bot's clock is the simulator's: moved past zero, the next job pass rehearses the step.
      demo.sim.clock.advance(demo.config.countdownSeconds * 1000);
      const thread = await threadOf(card);
      await thread
        .getByText(
          /REHEARSAL · Step 1 of 1 \(web-cpu\) would start cpu -l 30 -c 1 for 30 s on 2 of 4 hosts: platform-web-1, platform-web-2 · nothing was created at the platform/,
        )
        .waitFor();
      await counting.getByText('rehearsed: nothing was created at the platform').waitFor();
      expect([attacks(), creates()]).toEqual([attacksBefore, createsBefore]);
      await run('/chaos gameday end');
      const summary = channelMessages().filter({ hasText: `Game day summary: ${rehearsal}` });
      await summary.waitFor();
      const words = await summary.innerText();
      expect(words).toContain(`REHEARSAL · Game day summary: ${rehearsal}`);
      expect(words).toMatch(
        /1\. web-cpu · checkout stays under 500 ms p99 · .*rehearsed: nothing was created at the platform/,
      );
      expect(words).toContain('None: a rehearsal creates nothing at the platform.');
    }

    for (const { left } of readmeSteps(readme, heading)) {
      if (left.startsWith('/chaos save ')) {
        await run(left);
        await ephemeral('Saved web-cpu').waitFor();
      } else if (left.startsWith('/chaos gameday step ')) {
        await run(left);
        await ephemeral(/Added step \d/).waitFor();
      } else if (left.startsWith('/chaos gameday start ') && left.endsWith(' --rehearsal')) {
        await rehearse(left);
      } else if (left.startsWith('/chaos gameday start ')) {
        title = left.slice('/chaos gameday start '.length);
        await run(left);
        gameCard = channelMessages().filter({ hasText: `Game day: ${title}` });
        await gameCard.getByText('Plan (1 step)').waitFor();
      } else if (left.startsWith('(Add step on the game-day card: ')) {
        const [, spec, hypothesis] = /: (.*), ([^,]*)\)$/.exec(left)!;
        await gameCard!.getByRole('button', { name: 'Add step' }).click();
        const form = page.getByRole('dialog', { name: 'Add a step' });
        await form.getByRole('textbox', { name: 'Or an attack' }).fill(spec!);
        await form.getByRole('textbox', { name: 'Hypothesis' }).fill(hypothesis!);
        await form.getByRole('button', { name: 'Add step' }).click();
        await form.waitFor({ state: 'detached' });
        await gameCard!.getByText('Plan (2 steps)').waitFor();
      } else if (left.startsWith('/chaos gameday move ')) {
        await run(left);
        await ephemeral('Moved.').waitFor();
        expect(await gameCard!.innerText()).toMatch(/2\. .*latency[\s\S]*3\. .*memory/);
      } else if (left === '(Run next step on the game-day card)') {
        const before = attacks();
        await gameCard!.getByRole('button', { name: 'Run next step' }).click();
        expect(await countdown(1).innerText()).toMatch(/Step 1 of 3: web-cpu: cpu on .*, starts in 1\d s/);
        // At zero it starts with alice's session, on its own.
        await expect.poll(attacks, { timeout: countdownMs }).toBe(before + 1);
        await countdown(1)
          .getByText(/running/)
          .waitFor();
      } else if (left === '/chaos gameday next') {
        await run(left);
        await ephemeral(/Step \d of 3 counts down/).waitFor();
      } else if (/^\(Veto on the countdown of step (\d+), (.*)\)$/.test(left)) {
        const [, step, why] = /^\(Veto on the countdown of step (\d+), (.*)\)$/.exec(left)!;
        const before = attacks();
        await countdown(Number(step)).getByRole('button', { name: 'Veto' }).click();
        const form = page.getByRole('dialog', { name: 'Veto this step' });
        await form.getByRole('textbox', { name: 'Why' }).fill(why!);
        await form.getByRole('button', { name: 'Veto' }).click();
        await countdown(Number(step)).getByText(`vetoed by @alice: ${why}`).waitFor();
        expect(attacks()).toBe(before);
      } else if (/^\(Start now on the countdown of step (\d+)\)$/.test(left)) {
        const [, step] = /(\d+)/.exec(left)!;
        const before = attacks();
        await countdown(Number(step)).getByRole('button', { name: 'Start now' }).click();
        await expect.poll(attacks, { timeout: waitMs }).toBe(before + 1);
        await countdown(Number(step))
          .getByText(/running/)
          .waitFor();
      } else if (/^\((Held|Not held) on the question of step (\d+), (.*)\)$/.test(left)) {
        const [, button, step, observation] = /^\((Held|Not held) on the question of step (\d+), (.*)\)$/.exec(left)!;
        const asked = await question(Number(step), button!);
        await asked.getByRole('button', { name: button, exact: true }).click();
        const form = page.getByRole('dialog', { name: 'Hypothesis' });
        await form.getByRole('textbox', { name: 'Observation' }).fill(observation!);
        await form.getByRole('button', { name: 'Answer' }).click();
        await asked.getByText(observation!).first().waitFor();
      } else if (left === '/chaos gameday end') {
        await run(left);
      } else {
        throw new Error(`the README's plan has a step this test does not walk: ${left}`);
      }
    }

    const summary = channelMessages().filter({ hasText: `Game day summary: ${title}` });
    await summary.waitFor();
    const words = await summary.innerText();
    expect(words).toMatch(
      /1\. web-cpu · checkout stays under 500 ms p99 · .*Successful · .*held · “p99 peaked at 310 ms”/,
    );
    expect(words).toMatch(/2\. latency · .*vetoed by @alice: the payments team is deploying/);
    expect(words).toMatch(/3\. memory · .*did not hold · “two hosts were OOM-killed”/);
    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });
});
