/**
 * Values Faultline does not make itself. Button values arrive from the person's Slack client: a
 * tampered one must never reach the platform, so each forged click gets a short reply and the
 * simulator sees no request at all. Addresses the platform hands back (a tracker ticket's url) go
 * into channel text only when they are plain http(s) links.
 */
import { describe, expect, it } from 'vitest';
import { Stack, stackForFile, trackerEnv } from './harness.ts';

const read = Stack.read;
const channel = 'C0GENERAL';
let stack: Stack;
stackForFile({ env: trackerEnv }, (started) => (stack = started));

/** Clicks `button` on `surface` with `value` in place of its own; returns the ephemeral reply and what the platform received. */
async function forgedClick(
  personId: string,
  find: () => { click: (text: string, options: { sendValue: string; confirm?: boolean }) => Promise<unknown> },
  button: string,
  value: string,
  confirm = false,
) {
  const person = stack.person(personId);
  const replies = person.ephemerals(channel).length;
  const requests = stack.sim.requests.length;
  await find().click(button, { sendValue: value, ...(confirm ? { confirm } : {}) });
  const reply = await stack.fake.waitFor(
    () => person.ephemerals(channel).length > replies && person.ephemerals(channel).at(-1),
    `the reply to ${button} with ${value}`,
  );
  return { reply: read(reply), sent: stack.sim.requests.slice(requests).map((r) => `${r.method} ${r.path}`) };
}

describe('forged button values', () => {
  it('Halt, Details, File ticket and Add note with a forged attack id answer briefly and send nothing', async () => {
    const id = 'U0FORGED1';
    await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
    const team = stack.sim.seed.teams.platform.id;
    await stack.ask(id, 'attack cpu -l 300 --target-tags role=web --yes', { channel });
    const attack = [...stack.sim.state.attacks.values()].at(-1)!;
    const card = () =>
      stack
        .person(id)
        .channel(channel)
        .messages()
        .find((m) => m.text().includes(attack.guid))!;
    await stack.fake.waitFor(() => card(), 'the attack card');
    const others = stack.sim.addAttacks(team, 2);
    const modalsOpened = stack.fake.callsTo('views.open').length;

    const forged = [
      JSON.stringify({ g: '.' }),
      JSON.stringify({ g: '.', t: team }),
      JSON.stringify({ g: '.', t: team, k: 'a' }),
      JSON.stringify({ g: '../x', t: team }),
      JSON.stringify({ g: '..', t: team, k: 'k' }),
      JSON.stringify({ g: `${attack.guid}/../../halt`, t: team }),
      JSON.stringify({ g: 5, t: team }),
      JSON.stringify({ g: [attack.guid], t: team }),
      JSON.stringify({ g: attack.guid, t: '../x' }),
      JSON.stringify({ g: attack.guid, t: team, k: 'x' }),
      'not json',
    ];
    for (const button of ['Halt', 'Details', 'File ticket', 'Add note']) {
      for (const value of forged) {
        const { reply, sent } = await forgedClick(id, card, button, value);
        expect(reply, `${button} with ${value}`).toContain('That button no longer points at');
        expect(sent, `${button} with ${value}`).toEqual([]);
      }
    }
    for (const guid of [attack.guid, ...others]) expect(stack.sim.state.attacks.get(guid)!.halt).toBeUndefined();
    expect(stack.fake.callsTo('views.open').length, 'no note or ticket form opened').toBe(modalsOpened);

    // The same button with its own value still works.
    await card().click('Halt');
    await stack.fake.waitFor(() => stack.sim.state.attacks.get(attack.guid)!.halt, 'the real halt');
  });

  it('End game day with a forged game-day reference answers briefly', async () => {
    const id = 'U0FORGED2';
    await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
    await stack.ask(id, 'gameday start Forgery drill', { channel });
    const gameCard = () =>
      stack
        .person(id)
        .channel(channel)
        .messages()
        .find((m) => read(m).includes('Game day: Forgery drill'))!;
    await stack.fake.waitFor(() => gameCard(), 'the game-day card');
    for (const value of [
      JSON.stringify({ c: '../x', s: '1.2' }),
      JSON.stringify({ c: channel, s: '../1' }),
      JSON.stringify({ c: 5, s: '1.2' }),
      '{',
    ]) {
      const { reply, sent } = await forgedClick(id, gameCard, 'End game day', value, true);
      expect(reply, value).toContain('That button no longer points at');
      expect(sent, value).toEqual([]);
    }
    expect(read(await stack.ask(id, 'gameday status', { channel }))).toContain('Forgery drill');
  });
});

describe('tracker ticket links', () => {
  async function fileTicket(personId: string) {
    await stack.ask(personId, 'attack cpu -l 30 --target-tags role=web --yes', { channel });
    const attack = [...stack.sim.state.attacks.values()].at(-1)!;
    const card = await stack.fake.waitFor(
      () =>
        stack
          .person(personId)
          .channel(channel)
          .messages()
          .find((m) => m.text().includes(attack.guid)),
      'the attack card',
    );
    await card.click('File ticket');
    const person = stack.person(personId);
    const modal = await stack.fake.waitFor(
      () => person.modal()?.callbackId === 'ticket' && person.modal(),
      'the ticket form',
    );
    await modal.choose('Priority', 'High').choose('Environment', 'Production').submit();
    const filed = await stack.fake.waitFor(
      () => person.modal()?.title === 'Ticket filed' && person.modal(),
      'the filed confirmation',
    );
    const key = stack.sim.state.trackerIssues.at(-1)!.key;
    const thread = await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .thread(card.ts)
          .find((m) => m.text().includes(key)),
      'the key in the thread',
    );
    const listed = await stack.ask(personId, `tickets ${attack.guid}`, { channel });
    return {
      key,
      url: stack.sim.state.trackerIssues.at(-1)!.url,
      shown: [filed.text(), thread.text(), thread.fallbackText, listed.text()],
    };
  }

  it.each([
    ['a pipe and a mention', 'https://tracker.example/x|<!channel>'],
    ['angle brackets', 'https://tracker.example/<@U0BOSS>'],
    ['a script address', 'javascript:alert(1)//'],
    ['a space', 'https://tracker.example/a b'],
  ])('shows the key without a link when the url carries %s', async (_what, baseUrl) => {
    const id = 'U0TRACKER1';
    await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
    stack.sim.setTrackerBaseUrl(stack.sim.seed.teams.platform.id, baseUrl);
    const { key, url, shown } = await fileTicket(id);
    for (const text of shown) {
      if (!text.includes(key)) continue;
      expect(text).toContain(`*${key}*`);
      expect(text).not.toContain(url);
      expect(text).not.toMatch(/<!channel>|<@U0BOSS>|javascript:/);
    }
    expect(shown.filter((text) => text.includes(key)).length).toBeGreaterThanOrEqual(3);
  });

  it('links the key to a plain https url', async () => {
    const id = 'U0TRACKER2';
    await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
    stack.sim.setTrackerBaseUrl(stack.sim.seed.teams.platform.id, 'https://tracker.example/jira?a=1&b=2');
    const { key, url, shown } = await fileTicket(id);
    expect(url).toBe(`https://tracker.example/jira?a=1&b=2/browse/${key}`);
    for (const text of shown) if (text.includes(key)) expect(text).toContain(`<${url}|${key}>`);
  });
});

/** Mentions and links a person or the platform may slip into words Faultline repeats. */
const hostileTokens = /<!(channel|here|everyone)>|<!subteam\^|<@U0BOSS>|<https:\/\/evil\.example/;

/** Every message text the bot sent since `from`: each chat.* call's and response_url reply's `text`. */
function sentTexts(from: number): { method: string; text: string }[] {
  return stack.fake.calls.slice(from).flatMap((call) => {
    const out: { method: string; text: string }[] = [];
    if (typeof call.args['text'] === 'string') out.push({ method: call.method, text: call.args['text'] as string });
    JSON.stringify(call.args, (_k, v: unknown) => {
      if (v && typeof v === 'object' && (v as { type?: unknown }).type === 'mrkdwn')
        out.push({ method: `${call.method} block`, text: String((v as { text: unknown }).text) });
      return v;
    });
    return out;
  });
}

describe('fallback text', () => {
  it("escapes a saved attack's words in its preview's text like its blocks", async () => {
    const id = 'U0FALLBACK1';
    const person = await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
    // A host carries the tag, so the target matches something and the preview offers Start.
    stack.sim.clients.addHost(stack.sim.seed.teams.platform.id, 'fallback-1', {
      role: '<!channel> <https://evil.example|click> & co',
    });
    const saved = read(
      await stack.ask(id, 'save drill cpu -l 30 --target-tags "role=<!channel> <https://evil.example|click> & co"', {
        channel,
      }),
    );
    expect(saved).toContain('Saved drill');
    const from = stack.fake.calls.length;
    const shown = person.ephemerals(channel).length;
    await stack.ask(id, 'run drill', { channel });
    const preview = await stack.fake.waitFor(
      () => person.ephemerals(channel).length > shown && person.ephemerals(channel).at(-1),
      'the preview',
    );
    expect(read(preview)).toContain('Start this cpu attack?');
    expect(preview.fallbackText).toContain('&lt;!channel&gt;');
    expect(preview.fallbackText).toContain('&amp; co');
    for (const { method, text } of sentTexts(from)) expect(text, method).not.toMatch(hostileTokens);
  });
  it('keeps mentions and links out of every text the bot sends, whatever words a person or the platform gave', async () => {
    const id = 'U0FALLBACK2';
    const words = '<!channel> <https://evil.example|click> <@U0BOSS> <!subteam^S0OPS> & co';
    const platform = stack.sim.state.teams.get(stack.sim.seed.teams.platform.id)!;
    const teamName = platform.name;
    const from = stack.fake.calls.length;
    stack.sim.clients.addHost(platform.id, 'fallback-2', { role: words });
    platform.name = `Platform <!here>`;
    try {
      await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform <!here>' });
      const person = stack.person(id);
      const asked = async (text: string) => read(await stack.ask(id, text, { channel }));
      expect(await asked(`save drill cpu -l 30 --target-tags "role=${words}"`)).toContain('Saved drill');
      expect(await asked('saved')).toContain('drill');

      const shown = person.ephemerals(channel).length;
      await stack.ask(id, 'run drill', { channel });
      const preview = await stack.fake.waitFor(
        () => person.ephemerals(channel).length > shown && person.ephemerals(channel).at(-1),
        'the preview',
      );
      await preview.click('Start');
      const attack = await stack.fake.waitFor(() => [...stack.sim.state.attacks.values()].at(-1), 'the attack');
      const card = await stack.fake.waitFor(
        () =>
          person
            .channel(channel)
            .messages()
            .find((m) => m.text().includes(attack.guid)),
        'the attack card',
      );
      expect(await asked('list active')).toContain(attack.guid);
      await card.click('Add note');
      const note = await stack.fake.waitFor(
        () => person.modal()?.callbackId === 'attack_note' && person.modal(),
        'the note form',
      );
      await note.fill('Note', words).submit();
      await stack.fake.waitFor(
        () =>
          stack.fake
            .channel(channel)
            .thread(card.ts)
            .some((m) => m.text().includes('noted')),
        'the note in the thread',
      );
      expect(await asked(`tickets ${attack.guid}`)).toContain('No tickets yet');
      expect(await asked('status')).toContain('Faultline now');

      expect(await asked(`gameday start Drill ${words}`)).toContain('Drill');
      expect(await asked(`gameday step drill ${words}`)).toContain('Added step 1');
      // Someone of another company is told the step's team is not theirs, by its name as the platform gave it.
      const outsider = 'U0FALLBACK3';
      await stack.login(outsider, stack.sim.seed.users.globex, {});
      expect(read(await stack.ask(outsider, 'gameday next', { channel }))).toContain('Platform &lt;!here&gt;');
      expect(await asked('gameday next')).toContain('counts down');
      const countdown = await stack.fake.waitFor(
        () =>
          person
            .channel(channel)
            .messages()
            .find((m) => m.buttons().some((b) => b.text === 'Veto')),
        'the countdown',
      );
      await countdown.click('Veto');
      const veto = await stack.fake.waitFor(
        () => person.modal()?.callbackId === 'step_veto' && person.modal(),
        'the veto form',
      );
      await veto.fill('Why', words).submit();
      await stack.fake.waitFor(() => read(countdown).includes('etoed'), 'the veto on the countdown');
      await asked('gameday end');

      expect(await asked(`freeze --reason "${words}"`)).toContain('frozen');
      expect(await asked('unfreeze')).toContain('no longer frozen');
      expect(stack.sim.state.attacks.get(attack.guid)!.halt, 'the freeze halted the attack').toBeDefined();
      await stack.poll();
    } finally {
      platform.name = teamName;
    }
    const texts = sentTexts(from);
    expect(texts.length).toBeGreaterThan(20);
    expect(texts.filter(({ text }) => hostileTokens.test(text))).toEqual([]);
    // The words were shown, escaped, both in fallback texts and in blocks.
    expect(texts.some((t) => !t.method.endsWith('block') && t.text.includes('&lt;!channel&gt;'))).toBe(true);
    expect(texts.some((t) => t.method.endsWith('block') && t.text.includes('&lt;!channel&gt;'))).toBe(true);
  });
});
