import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hasChromium, skipNote, useDemoInBrowser } from './support/browser.ts';

/**
 * The README's Quick start, followed in the playground page in Chromium: the login it names, the
 * team it names, then the attack it names, up to its card. Read from the README's words, so the
 * first thing a newcomer tries is the thing tested.
 */

const waitMs = 15_000;

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

/** "Type `/chaos login`, log in as `e-mail` / `password`, choose the team **T**, then `/chaos attack …`." */
function quickStart(markdown: string) {
  const start = markdown.indexOf('## Quick start');
  const section = markdown.slice(start, markdown.indexOf('\n## ', start + 1)).replace(/\s+/g, ' ');
  const found =
    /Type `(\/chaos login)`, log in as `(\S+)` \/ `(\S+)`, choose the team \*\*(\w+)\*\*, then `(\/chaos attack [^`]+)`/.exec(
      section,
    );
  if (!found) throw new Error('the README’s Quick start no longer says how to log in and start an attack');
  const [, login, email, password, team, attack] = found;
  return { login: login!, email: email!, password: password!, team: team!, attack: attack! };
}

describe("the README's Quick start", () => {
  it('names a login, a team and an attack', () => {
    const steps = quickStart(readme);
    expect(steps.login).toBe('/chaos login');
    expect(steps.attack).toMatch(/^\/chaos attack \w+ /);
  });
});

describe.skipIf(!hasChromium)(skipNote("the README's Quick start in a browser"), { timeout: 60_000 }, () => {
  const playground = useDemoInBrowser({ dataDirPrefix: 'faultline-quickstart-browser-', waitMs });
  const { run, ephemerals, pageErrors, errorLogs } = playground;

  it('logs in as it says, chooses its team, and starts its attack from the preview', async () => {
    const { demo, page } = playground;
    const steps = quickStart(readme);
    await page.goto(`${demo.playgroundUrl}#U0ALICE/C0GENERAL`);
    await page.getByText('Nothing here yet').waitFor();

    await run(steps.login);
    const login = page.getByRole('dialog', { name: 'Log in to the platform' });
    await login.getByRole('textbox', { name: 'Email' }).fill(steps.email);
    await login.getByRole('textbox', { name: 'Password' }).fill(steps.password);
    await login.getByRole('button', { name: 'Log in', exact: true }).click();
    const picker = page.getByRole('dialog', { name: 'Choose a team' });
    await picker.getByRole('combobox', { name: 'Team' }).selectOption({ label: steps.team });
    await picker.getByRole('button', { name: 'Use this team' }).click();
    await page.getByRole('dialog', { name: 'Logged in' }).getByRole('button', { name: 'Done' }).click();

    const type = steps.attack.split(/\s+/)[2]!;
    await run(steps.attack);
    const preview = ephemerals().filter({ has: page.getByRole('button', { name: 'Start', exact: true }) });
    await preview.getByRole('button', { name: 'Start', exact: true }).click();
    await expect.poll(() => demo.sim.state.attacks.size, { timeout: waitMs }).toBe(1);
    const attack = [...demo.sim.state.attacks.values()][0]!;
    expect(attack.type).toBe(type);
    await playground.attackCard(`${type} attack ·`).filter({ hasText: attack.guid }).waitFor();
    expect(pageErrors).toEqual([]);
    expect(errorLogs).toEqual([]);
  });
});
