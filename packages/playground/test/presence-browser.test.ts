import { describe, expect, it } from 'vitest';
import { hasChromium, readme, skipNote, useDemoInBrowser, walkSteps } from './support/browser.ts';

/**
 * The README's "Presence checks, in the demo", walked in the playground page in Chromium: the
 * attack's starter is asked "Still watching?" in their direct messages after the demo's
 * PRESENCE_MINUTES, Still here keeps the attack running until the next question, and a question
 * left unanswered halts it, the card saying nobody was watching. The bot's clock is the
 * simulator's: the test moves it on rather than wait the minutes out.
 */

const waitMs = 20_000;
const heading = '### Presence checks, in the demo';

/** The minutes a step's text names ("after about 2 minutes", "for 5 minutes"). */
const minutesIn = (text: string) => Number(/(\d+) minutes?/.exec(text)?.[1] ?? Number.NaN);

describe("the README's presence walk", () => {
  it('starts an attack, is asked in direct messages, answers Still here once, then leaves the question', () => {
    const steps = walkSteps(readme, heading);
    expect(steps.map((step) => step.kind)).toEqual(['command', 'action', 'action', 'action']);
    expect(steps[0]!.text).toMatch(/^\/chaos attack cpu /);
    expect(steps[1]!.text).toMatch(/^Direct messages, after about \d+ minutes$/);
    expect(steps[2]!.text).toBe('Still here');
    expect(steps[3]!.text).toMatch(/^no answer for \d+ minutes$/);
  });
});

describe.skipIf(!hasChromium)(skipNote("the README's presence walk in a browser"), { timeout: 120_000 }, () => {
  const playground = useDemoInBrowser({ dataDirPrefix: 'faultline-presence-browser-', waitMs });
  const { attackCard, pageErrors, errorLogs } = playground;

  it('asks in the sidebar’s direct messages, Still here keeps the attack, no answer halts it and the card says why', async () => {
    const { demo, page } = playground;
    await playground.logInAsOwner('U0ALICE/C0GAMEDAY', 'Platform');
    const directLink = page.locator('#dm-link');
    const timeline = page.locator('#timeline > article.message');
    const asked = (guid: string) =>
      timeline
        .filter({ hasText: `Still watching the cpu attack ${guid}` })
        .filter({ has: page.getByRole('button', { name: 'Still here' }) });

    let guid = '';
    for (const step of walkSteps(readme, heading)) {
      const { kind, text, line } = step;
      if (kind === 'command' && text.startsWith('/chaos attack ')) {
        guid = await playground.startAttack(text);
        await attackCard(guid).waitFor();
        expect(line).toContain('the attack card');
      } else if (kind === 'action' && text.startsWith('Direct messages, after about ')) {
        expect(minutesIn(text)).toBe(demo.features.presenceMinutes);
        expect(line).toContain('"Still watching the cpu attack …?" with Still here and Halt');
        demo.sim.clock.advance(minutesIn(text) * 60_000 + 10_000);
        // Still in #gameday: the sidebar says a direct message is waiting.
        await expect
          .poll(() => directLink.getAttribute('aria-label'), { timeout: waitMs })
          .toBe('Faultline, direct messages, 1 unread');
        await playground.openDirectMessages();
        const question = asked(guid);
        await question.waitFor();
        await question.getByRole('button', { name: 'Halt', exact: true }).waitFor();
      } else if (kind === 'action' && text === 'Still here') {
        const again = minutesIn(line);
        expect(again).toBe(demo.features.presenceMinutes);
        await asked(guid).getByRole('button', { name: 'Still here' }).click();
        await timeline.filter({ hasText: `runs on. You will be asked again in ${again} minutes` }).waitFor();
        await expect.poll(() => asked(guid).count(), { timeout: waitMs }).toBe(0);
        // It keeps running, and the question comes again that many minutes after the answer.
        demo.sim.clock.advance(again * 60_000 + 5_000);
        await asked(guid).waitFor();
        expect(demo.sim.state.attacks.get(guid)!.timeline.haltedAt).toBeUndefined();
      } else if (kind === 'action' && text.startsWith('no answer for ')) {
        demo.sim.clock.advance(minutesIn(text) * 60_000 + 5_000);
        await timeline.filter({ hasText: `Nobody answered within ${minutesIn(text)} minutes` }).waitFor();
        expect(await asked(guid).count()).toBe(0);
        expect(demo.sim.state.attacks.get(guid)!.halt).toEqual(
          expect.objectContaining({ reason: 'nobody was watching' }),
        );
        // The card, back in the channel, says why it was halted.
        expect(line).toContain('the card says "Halted: nobody was watching"');
        await page.getByRole('button', { name: '# gameday' }).click();
        const card = attackCard(guid);
        await card.getByText('Halted: nobody was watching.').waitFor();
        expect(await card.innerText()).toContain('@alice did not answer the presence check in time');
      } else {
        throw new Error(`the README's presence walk has a step this test does not walk: ${line}`);
      }
    }

    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });
});
