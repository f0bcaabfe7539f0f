import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, readmeSteps, skipNote, useDemoInBrowser } from './support/browser.ts';

/**
 * The README's "Approval and the secure login page, in the demo", walked in the playground page
 * in Chromium against the demo as `./run.sh` starts it: an attack that needs a second person, the
 * request, another person logging in on the secure page (in a tab of its own, the password
 * masked) and approving. The steps are read from the README, as the game day's are.
 */

const waitMs = 15_000;

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

type Step =
  | { kind: 'command'; text: string }
  | { kind: 'click'; text: string }
  | { kind: 'person'; name: string }
  | { kind: 'page login'; email: string; password: string };

function approvalSteps(markdown: string): Step[] {
  return readmeSteps(markdown, '### Approval and the secure login page, in the demo').map(({ left, line }): Step => {
    if (left.startsWith('/chaos ')) return { kind: 'command', text: left };
    const person = /^\(Acting as (\w+)\)$/.exec(left);
    if (person) return { kind: 'person', name: person[1]! };
    const pageLogin = /^\((\S+@\S+), (\S+), Log in\)$/.exec(left);
    if (pageLogin) return { kind: 'page login', email: pageLogin[1]!, password: pageLogin[2]! };
    const clicked = /^\((.*)\)$/.exec(left);
    if (clicked) return { kind: 'click', text: clicked[1]! };
    throw new Error(`a README approval line that is neither a command, a person, a login nor a click: ${line}`);
  });
}

describe("the README's approval and secure-page steps", () => {
  it('are found: an attack that needs approval, the request, another person on the secure page, Approve', () => {
    const steps = approvalSteps(readme);
    expect(steps[0]).toEqual({ kind: 'command', text: expect.stringMatching(/^\/chaos attack \w+ -l \d+ /) });
    expect(steps).toContainEqual({ kind: 'click', text: 'Request approval' });
    expect(steps).toContainEqual({ kind: 'person', name: expect.any(String) });
    expect(steps).toContainEqual({ kind: 'click', text: 'Log in on a secure page' });
    expect(steps).toContainEqual({ kind: 'page login', email: expect.any(String), password: expect.any(String) });
    expect(steps.at(-1)).toEqual({ kind: 'click', text: 'Approve on the request' });
  });
});

describe.skipIf(!hasChromium)(
  skipNote("the README's approval and secure page in a browser"),
  { timeout: 120_000 },
  () => {
    const playground = useDemoInBrowser({ dataDirPrefix: 'faultline-approval-browser-', waitMs });
    const { run, channelMessages, ephemerals, pageErrors, errorLogs } = playground;

    it('walks every step: the request, a login on the secure page, the approval, and the card names both', async () => {
      const { demo, page } = playground;
      await playground.logInAsOwner('U0ALICE/C0GAMEDAY', 'Platform');
      const request = channelMessages().filter({ has: page.getByRole('button', { name: 'Approve' }) });
      let secure: Page | undefined;
      let attackType = '';
      let approver = '';

      for (const step of approvalSteps(readme)) {
        if (step.kind === 'command' && step.text.startsWith('/chaos attack ')) {
          attackType = step.text.split(/\s+/)[2]!;
          await run(step.text);
          const preview = ephemerals().filter({ has: page.getByRole('button', { name: 'Request approval' }) });
          await preview.waitFor();
          expect(await preview.innerText()).toContain('second person');
        } else if (step.kind === 'click' && step.text === 'Request approval') {
          await ephemerals().getByRole('button', { name: 'Request approval' }).last().click();
          await request.waitFor();
          expect(await request.innerText()).toContain('@alice');
        } else if (step.kind === 'person') {
          approver = step.name;
          await page.getByRole('combobox', { name: 'Acting as' }).selectOption({ label: step.name });
          await request.waitFor();
        } else if (step.kind === 'command' && step.text === '/chaos login') {
          await run(step.text);
          await page.getByRole('dialog', { name: 'Log in to the platform' }).waitFor();
        } else if (step.kind === 'click' && step.text === 'Log in on a secure page') {
          const login = page.getByRole('dialog', { name: 'Log in to the platform' });
          const [tab] = await Promise.all([
            page.waitForEvent('popup'),
            login.getByRole('button', { name: 'Log in on a secure page' }).click(),
          ]);
          secure = tab;
          await secure.getByRole('heading', { name: 'Log in to the platform' }).waitFor({ timeout: waitMs });
          // Served at the demo's own address, the password masked.
          expect(new URL(secure.url()).origin).toBe(new URL(demo.playgroundUrl).origin);
          expect(await secure.getByLabel('Password').getAttribute('type')).toBe('password');
        } else if (step.kind === 'page login') {
          await secure!.getByLabel('Email').fill(step.email);
          await secure!.getByLabel('Password').fill(step.password);
          await secure!.getByRole('button', { name: 'Log in', exact: true }).click();
          await secure!.getByRole('heading', { name: 'You are logged in' }).waitFor({ timeout: waitMs });
          await secure!.close();
          // The login window in the page says so too, as it would in Slack: closed by hand.
          const done = page.getByRole('dialog', { name: 'Logged in' });
          await done.waitFor({ timeout: waitMs });
          await done.getByRole('button', { name: 'Done' }).click();
          await done.waitFor({ state: 'detached' });
          await run('/chaos whoami');
          await ephemerals().filter({ hasText: step.email }).last().waitFor();
        } else if (step.kind === 'click' && step.text === 'Approve on the request') {
          const before = demo.sim.state.attacks.size;
          await request.getByRole('button', { name: 'Approve' }).click();
          const card = playground.attackCard(`${attackType} attack ·`);
          await card.waitFor();
          const text = await card.innerText();
          expect(text).toContain('@alice');
          expect(text).toContain(`@${approver}`);
          expect(demo.sim.state.attacks.size).toBe(before + 1);
        } else {
          throw new Error(`the README's approval walk has a step this test does not walk: ${JSON.stringify(step)}`);
        }
      }
      expect(pageErrors).toEqual([]);
      expect(errorLogs).toEqual([]);
    });
  },
);
