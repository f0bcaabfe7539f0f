import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hasChromium, readmeSteps, skipNote, useDemoInBrowser } from './support/browser.ts';

/**
 * The README's "Ask Slackbot" walk in the playground page in Chromium: Faultline's tools called
 * from the page's box as Slackbot calls them (signed, naming the person), a halt that acts at
 * once, and a requested attack that starts only when the person presses Start in Slack.
 */
const waitMs = 20_000;

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

type Step =
  | { kind: 'command'; text: string }
  | { kind: 'ask'; tool: string; arg: [string, string] | undefined }
  | { kind: 'start from the DM' };

/** The walk's lines: a command typed, a tool asked in the box (with one argument), or Start in the DM. */
function slackbotSteps(markdown: string): Step[] {
  return readmeSteps(markdown, '### Ask Slackbot, in the demo').map(({ left, line }): Step => {
    if (left.startsWith('/chaos ')) return { kind: 'command', text: left };
    const ask = /^\((?:Ask Slackbot: )?([a-z_]+)(?:, ([a-z_]+): (.+))? → Ask\)$/.exec(left);
    if (ask) return { kind: 'ask', tool: ask[1]!, arg: ask[2] ? [ask[2], ask[3]!] : undefined };
    if (left === '(Direct messages → Faultline → Start)') return { kind: 'start from the DM' };
    throw new Error(`an Ask Slackbot line that is neither a command, a tool asked nor Start: ${line}`);
  });
}

describe("the README's Ask Slackbot walk", () => {
  it('starts an attack, lists and halts it from the box, and requests another that the DM starts', () => {
    const steps = slackbotSteps(readme);
    expect(steps[0]).toMatchObject({ kind: 'command', text: expect.stringMatching(/^\/chaos attack /) });
    expect(steps.filter((step) => step.kind === 'ask').map((step) => step.kind === 'ask' && step.tool)).toEqual([
      'list_attacks',
      'halt_attack',
      'request_attack',
    ]);
    expect(steps.at(-1)).toEqual({ kind: 'start from the DM' });
  });
});

describe.skipIf(!hasChromium)(skipNote("the README's Ask Slackbot walk in a browser"), { timeout: 120_000 }, () => {
  const playground = useDemoInBrowser({ dataDirPrefix: 'faultline-slackbot-browser-', waitMs });
  const { run, ephemerals, attackCard, pageErrors, errorLogs } = playground;

  it('walks it as the README says, as alice in #gameday', async () => {
    const { demo, page } = playground;
    const attacks = () => [...demo.sim.state.attacks.values()];
    await playground.logInAsOwner('U0ALICE/C0GAMEDAY', 'Platform');
    const box = page.getByRole('region', { name: 'Ask Slackbot' });
    const answer = page.locator('#slackbot-answer');
    let guid = '';
    let answered = 0;

    for (const step of slackbotSteps(readme)) {
      if (step.kind === 'command') {
        const before = attacks().length;
        await run(step.text);
        await ephemerals().getByRole('button', { name: 'Start', exact: true }).last().click();
        await expect.poll(() => attacks().length, { timeout: waitMs }).toBe(before + 1);
        guid = attacks().at(-1)!.guid;
        await attackCard(guid).waitFor();
      } else if (step.kind === 'ask') {
        await box.getByRole('combobox', { name: 'Tool' }).selectOption(step.tool);
        if (step.arg) {
          const [name, value] = step.arg;
          await box.getByRole('textbox', { name, exact: true }).fill(value === '<id>' ? guid.slice(0, 8) : value);
        }
        const before = attacks().length;
        await box.getByRole('button', { name: 'Ask' }).click();
        await expect.poll(async () => (await answer.textContent()) ?? '', { timeout: waitMs }).not.toBe('');
        const text = (await answer.textContent()) ?? '';
        answered += 1;
        if (step.tool === 'list_attacks') expect(text).toContain(guid.slice(0, 8));
        if (step.tool === 'halt_attack') {
          // The page names the person, as Slack shows a mention.
          expect(text).toContain(`Halt requested for attack ${guid} by @alice`);
          await expect
            .poll(() => demo.sim.state.attacks.get(guid)!.timeline.haltedAt, { timeout: waitMs })
            .toBeDefined();
        }
        if (step.tool === 'request_attack') {
          expect(text).toContain('Waiting for you to press Start in Slack');
          expect(attacks()).toHaveLength(before);
        }
        await answer.evaluate((element) => {
          element.textContent = '';
        });
      } else {
        const before = attacks().length;
        await page.locator('#dm-link').click();
        const preview = page.locator('#timeline > article.message').filter({ hasText: 'memory' }).last();
        await preview.getByRole('button', { name: 'Start', exact: true }).click();
        await expect.poll(() => attacks().length, { timeout: waitMs }).toBe(before + 1);
        await page.getByRole('button', { name: '# gameday' }).click();
        await attackCard(attacks().at(-1)!.guid).waitFor();
      }
    }
    expect(answered).toBe(3);
    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });
});
