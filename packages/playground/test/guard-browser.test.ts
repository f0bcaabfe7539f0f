import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasChromium, readmeSteps, skipNote, useDemoInBrowser } from './support/browser.ts';

/**
 * The README's guard walkthrough in the playground page in Chromium: a game day with a guard, an
 * attack, the monitor turned to Alert in the page's Simulator panel, and the attack halted by
 * the guard at the demo's own poll. The steps are read from the README, as the game day's are.
 */

/** Bounds every wait; the demo polls every 3 s, so a guard fires well within it. */
const waitMs = 20_000;

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

type Step = { kind: 'command'; text: string } | { kind: 'panel'; signal: string; state: string };

/** The steps of the README's "A guard firing, in the demo": commands typed, and changes in the Simulator panel. */
function guardSteps(markdown: string): Step[] {
  return readmeSteps(markdown, '### A guard firing, in the demo').map(({ left, line }): Step => {
    if (left.startsWith('/chaos ')) return { kind: 'command', text: left };
    const panel = /^\(Simulator panel: (.+) → (\S+)\)$/.exec(left);
    if (panel) return { kind: 'panel', signal: panel[1]!, state: panel[2]! };
    throw new Error(`a README guard line that is neither a command nor a change in the Simulator panel: ${line}`);
  });
}

describe("the README's guard walkthrough", () => {
  it("starts a guarded game day, starts an attack and turns the guard's monitor to Alert in the panel", () => {
    const steps = guardSteps(readme);
    expect(steps[0]).toEqual({
      kind: 'command',
      text: expect.stringMatching(/^\/chaos gameday start \S.* --guard a:\d+$/),
    });
    expect(steps.some((step) => step.kind === 'command' && step.text.startsWith('/chaos attack '))).toBe(true);
    expect(steps).toContainEqual({ kind: 'panel', signal: expect.stringMatching(/\(\d+\)$/), state: 'Alert' });
  });
});

describe.skipIf(!hasChromium)(skipNote("the README's guard walkthrough in a browser"), { timeout: 120_000 }, () => {
  const playground = useDemoInBrowser({ dataDirPrefix: 'faultline-guard-browser-', waitMs });
  const { run, channelMessages, ephemerals, attackCard, pageErrors, errorLogs } = playground;
  const monitorOf = (id: number) =>
    playground.demo.sim.state.companies
      .get(playground.demo.sim.seed.company.id)!
      .monitoringA!.monitors.find((monitor) => monitor.id === id)!;

  it('walks every step: the guard fires at the next poll and halts the attack, and the card, its thread and the timeline say so', async () => {
    const { demo, page } = playground;
    await playground.logInAsOwner('U0ALICE/C0GAMEDAY', 'Platform');

    const panel = page.getByRole('region', { name: 'Simulator' });
    let guardId = 0;
    let gameCard = channelMessages().first();
    const halted: string[] = [];
    let running: string | undefined;
    for (const step of guardSteps(readme)) {
      if (step.kind === 'command' && step.text.startsWith('/chaos gameday start ')) {
        guardId = Number(/--guard a:(\d+)/.exec(step.text)![1]);
        const dayTitle = step.text.slice('/chaos gameday start '.length).replace(/\s+--guard.*$/, '');
        await run(step.text);
        gameCard = channelMessages().filter({ hasText: `Game day: ${dayTitle}` });
        await gameCard.waitFor();
      } else if (step.kind === 'command' && step.text.startsWith('/chaos attack ')) {
        const type = step.text.split(/\s+/)[2]!;
        const before = demo.sim.state.attacks.size;
        await run(step.text);
        if (monitorOf(guardId).state === 'Alert') {
          // Refused while the guard says unhealthy, naming it; nothing reaches the platform.
          await ephemerals()
            .filter({
              hasText: /Not started: its guard checkout p99 latency \(\d+\) \(Alert\) says the system is unhealthy/,
            })
            .waitFor();
          expect(demo.sim.state.attacks.size).toBe(before);
          continue;
        }
        const preview = ephemerals()
          .filter({ hasText: type })
          .filter({ has: page.getByRole('button', { name: 'Start', exact: true }) })
          .last();
        expect(await preview.innerText()).toMatch(/checkout p99 latency \(\d+\): OK/);
        await preview.getByRole('button', { name: 'Start', exact: true }).click();
        await expect.poll(() => demo.sim.state.attacks.size, { timeout: waitMs }).toBe(before + 1);
        running = [...demo.sim.state.attacks.values()].at(-1)!.guid;
        await attackCard(running)
          .getByText(/Guards .*checkout p99 latency \(\d+\): OK/)
          .waitFor();
      } else if (step.kind === 'panel') {
        const select = panel.getByRole('combobox', { name: step.signal });
        await select.selectOption(step.state);
        await expect.poll(() => monitorOf(guardId).state, { timeout: waitMs }).toBe(step.state);
        if (step.state !== 'Alert' || running === undefined) continue;
        // No poll is forced: the demo's own poller reads the guard and halts the attack.
        const card = attackCard(running);
        await card.getByText(/checkout p99 latency \(\d+\): Alert · fired .*, halted this attack/).waitFor();
        expect(demo.sim.state.attacks.get(running)!.halt).toEqual(
          expect.objectContaining({ reason: expect.stringMatching(/^guard checkout p99 latency \(\d+\) fired$/) }),
        );
        await card.locator(':scope > .message-body > .thread-toggle').click();
        await card.getByText(/Guard checkout p99 latency \(\d+\) fired \(Alert\) at .*: halted this attack/).waitFor();
        await gameCard.locator(':scope > .message-body > .thread-toggle').click();
        await gameCard.getByText(new RegExp(`fired \\(Alert\\) at .*: halted cpu ${running}`)).waitFor();
        // Past the platform's halting stages: the card says how it ended and loses its Halt button.
        demo.sim.clock.advance(30_000);
        await card.getByText('User Halted').first().waitFor();
        await expect
          .poll(() => card.getByRole('button', { name: 'Halt', exact: true }).count(), { timeout: waitMs })
          .toBe(0);
        halted.push(running);
        running = undefined;
      } else {
        throw new Error(`the README's guard walkthrough has a step this test does not walk: ${JSON.stringify(step)}`);
      }
    }
    expect(halted).toHaveLength(1);
    await expect
      .poll(() => panel.getByRole('combobox', { name: `checkout p99 latency (${guardId})` }).inputValue(), {
        timeout: waitMs,
      })
      .toBe(monitorOf(guardId).state);

    await page.screenshot({ path: join(tmpdir(), 'faultline-guard.png'), fullPage: true });
    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });
});
