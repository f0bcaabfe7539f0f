import { describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.ts';
import { Stack, stackForFile } from './harness.ts';

const read = Stack.read;
const channel = 'C0GENERAL';
let stack: Stack;
stackForFile(
  { env: { ATTACK_CHANNELS: channel, APPROVAL_RULES: 'length>300, type=memory' } },
  (started) => (stack = started),
);

let n = 0;
const next = () => `U0APPR${++n}`;
const users = () => stack.sim.seed.users;
const attacksInSim = () => [...stack.sim.state.attacks.values()];
const isRequest = (m: { text(): string }) =>
  /asks to start|> approved <@|rejected <@|withdrew the request|ended after 15 minutes/.test(read(m));
const requestMessage = () => stack.fake.channel(channel).messages().findLast(isRequest);
/** The request as one person sees it, to click. */
const seenBy = (personId: string, ts: string) =>
  stack
    .person(personId)
    .channel(channel)
    .messages()
    .find((m) => m.ts === ts)!;

async function people() {
  const requester = next();
  const approver = next();
  const observer = next();
  await stack.login(requester, users().owner, { team: 'Platform' });
  await stack.login(approver, users().solo);
  await stack.login(observer, users().observer);
  return { requester, approver, observer };
}

async function requestFor(personId: string, text: string) {
  const preview = await stack.ask(personId, text, { channel });
  expect(read(preview)).toContain('needs a second person because it runs longer than 300 seconds');
  expect(preview.buttons().map((b) => b.text)).toEqual(['Request approval', 'Cancel']);
  const before = requestMessage()?.ts;
  const answers = () =>
    stack
      .person(personId)
      .ephemerals(channel)
      .filter((m) => read(m).includes('The request is in')).length;
  const answered = answers();
  await preview.click('Request approval');
  // The requester hears back (in place of the preview) once the request is kept and posted.
  await stack.fake.waitFor(() => answers() > answered, "the requester's answer");
  return stack.fake.waitFor(() => requestMessage()?.ts !== before && requestMessage(), 'the request in the channel');
}

describe('two-person approval', () => {
  it('starts exactly one attack when another person with EXPERIMENTS_RUN approves, and records both people', async () => {
    const { requester, approver, observer } = await people();
    const request = await requestFor(requester, 'attack cpu -l 600 -c 1');
    expect(read(request)).toContain(`<@${requester}> asks to start a cpu attack -l 600 -c 1`);
    expect(attacksInSim()).toHaveLength(0);

    // Not the requester, and not someone without EXPERIMENTS_RUN.
    await seenBy(requester, request.ts).click('Approve');
    await stack.fake.waitFor(
      () => read(stack.person(requester).ephemerals(channel).at(-1)).includes('someone else has to approve'),
      'the refusal to self-approve',
    );
    await seenBy(observer, request.ts).click('Approve');
    await stack.fake.waitFor(
      () => read(stack.person(observer).ephemerals(channel).at(-1)).includes('needs EXPERIMENTS_RUN'),
      'the refusal without privilege',
    );
    expect(attacksInSim()).toHaveLength(0);

    // Two clicks at once: one attack.
    await Promise.all([seenBy(approver, request.ts).click('Approve'), seenBy(approver, request.ts).click('Approve')]);
    const attack = await stack.fake.waitFor(() => attacksInSim()[0], 'the approved attack');
    await stack.fake.waitFor(
      () => read(stack.person(approver).ephemerals(channel).at(-1)).includes('Approved'),
      "the approver's answer",
    );
    await stack.built.services.slack.flush();
    expect(attacksInSim()).toHaveLength(1);
    expect(attack.annotations).toEqual(
      expect.objectContaining({ 'faultline-approval': expect.stringContaining('approved by') }),
    );
    const card = stack.fake
      .channel(channel)
      .messages()
      .find((m) => m.text().includes(attack.guid) && read(m).includes('Started by'))!;
    expect(read(card)).toContain(`Started by <@${requester}>`);
    expect(read(card)).toContain(`approved by <@${approver}>`);
    expect(read(requestMessage())).toContain(`<@${approver}> approved <@${requester}>'s cpu attack`);
    expect(requestMessage()!.buttons()).toEqual([]);
    expect(stack.logs.filter((l) => l['audit'] === 'attack_approved')).toEqual([
      expect.objectContaining({ slackUser: approver, attack: attack.guid, requestedBy: requester }),
    ]);
  });

  it('starts nothing on Reject, on withdrawal, or after 15 minutes without an answer', async () => {
    const { requester, approver } = await people();
    const rejected = await requestFor(requester, 'attack cpu -l 900');
    await seenBy(approver, rejected.ts).click('Reject');
    await stack.built.services.slack.flush();
    await stack.fake.waitFor(() => read(requestMessage()).includes('rejected'), 'the rejection');

    const withdrawn = await requestFor(requester, 'attack cpu -l 900');
    await seenBy(requester, withdrawn.ts).click('Reject');
    await stack.built.services.slack.flush();
    await stack.fake.waitFor(() => read(requestMessage()).includes('withdrew'), 'the withdrawal');
    // The requester's own answer may come after the channel's: the next request must not take it for its preview.
    await stack.fake.waitFor(
      () => read(stack.person(requester).ephemerals(channel).at(-1)).includes('Withdrawn'),
      "the requester's answer to the withdrawal",
    );

    // Clicked after 15 minutes: nothing starts, and the request says it ended.
    const late = await requestFor(requester, 'attack cpu -l 900');
    stack.advanceClock(16 * 60_000);
    await seenBy(approver, late.ts).click('Approve');
    await stack.fake.waitFor(
      () => read(stack.person(approver).ephemerals(channel).at(-1)).includes('no longer open'),
      'the closed request',
    );
    await stack.built.services.slack.flush();
    expect(
      read(
        stack.fake
          .channel(channel)
          .messages()
          .find((m) => m.ts === late.ts),
      ),
    ).toContain('ended after 15 minutes without an answer');

    // Never answered: the poller ends it.
    const lapsed = await requestFor(requester, 'attack cpu -l 900');
    stack.advanceClock(16 * 60_000);
    await stack.poll();
    expect(
      read(
        stack.fake
          .channel(channel)
          .messages()
          .find((m) => m.ts === lapsed.ts),
      ),
    ).toContain('ended after 15 minutes without an answer');
    expect(attacksInSim()).toHaveLength(0);
  });

  it('cannot be skipped with --yes, applies each rule, and leaves other starts alone', async () => {
    const { requester } = await people();
    const viaYes = await stack.ask(requester, 'attack memory -l 30 -p 10 --yes', { channel });
    expect(read(viaYes)).toContain('needs a second person because memory attacks need a second person');
    expect(read(requestMessage())).toContain('asks to start a memory attack');
    expect(attacksInSim()).toHaveLength(0);
    expect(read(await stack.ask(requester, 'attack cpu -l 60 --yes', { channel }))).toContain('Started cpu attack');
    expect(attacksInSim()).toHaveLength(1);
  });

  it("refuses an approval from the requester's own platform login in another Slack account", async () => {
    const requester = next();
    const secondAccount = next();
    await stack.login(requester, users().owner, { team: 'Platform' });
    await stack.login(secondAccount, users().owner, { team: 'Platform' });
    const request = await requestFor(requester, 'attack cpu -l 600');
    await seenBy(secondAccount, request.ts).click('Approve');
    await stack.fake.waitFor(
      () => read(stack.person(secondAccount).ephemerals(channel).at(-1)).includes('asked for with your platform login'),
      'the refusal to the same login',
    );
    await stack.built.services.slack.flush();
    expect(attacksInSim()).toHaveLength(0);
    expect(
      requestMessage()!
        .buttons()
        .map((b) => b.text),
    ).toEqual(['Approve', 'Reject']);
  });

  it('closes a request answered the moment it was posted, and never brings it back', async () => {
    const { requester, approver } = await people();
    // The approver rejects the request as soon as Slack shows it, before the bot has saved where it is.
    const slack = stack.built.services.slack;
    const post = slack.post.bind(slack);
    let clicked = false;
    slack.post = async (where, message, options) => {
      const posted = await post(where, message, options);
      if (!clicked && /asks to start/.test(message.text)) {
        clicked = true;
        await seenBy(approver, posted.ts).click('Reject');
        await stack.fake.waitFor(
          () => read(stack.person(approver).ephemerals(channel).at(-1)).includes('Rejected'),
          'the rejection',
        );
      }
      return posted;
    };
    const preview = await stack.ask(requester, 'attack cpu -l 900', { channel });
    await preview.click('Request approval');
    await stack.fake.waitFor(
      () => read(stack.person(requester).ephemerals(channel).at(-1)).includes('The request is in'),
      "the requester's answer",
    );
    await stack.built.services.slack.flush();
    expect(clicked).toBe(true);
    expect(read(requestMessage())).toContain('rejected');
    expect(requestMessage()!.buttons()).toEqual([]);
    const open: string[] = [];
    for await (const [k] of stack.built.store.entries('approval:')) open.push(k);
    expect(open).toEqual([]);
  });

  it('closes a request whose answer a stopped bot took before it began the start', async () => {
    const { requester, approver } = await people();
    const request = await requestFor(requester, 'attack cpu -l 900');
    const [id] = [...(await entriesOf('approval:'))];
    // The bot that took the Approve died before it wrote the start down: its claim outlives it.
    expect(await stack.built.store.claim(keys.approvalDecided.key(id!), keys.approvalDecided.ttlMs)).toBe(true);
    await seenBy(approver, request.ts).click('Approve');
    expect(attacksInSim()).toHaveLength(0);

    stack.advanceClock(17 * 60_000);
    await stack.poll();
    await stack.built.services.slack.flush();
    const closed = stack.fake
      .channel(channel)
      .messages()
      .find((m) => m.ts === request.ts)!;
    expect(read(closed)).toContain('Faultline restarted before it acted on the answer. Nothing was started');
    expect(closed.buttons()).toEqual([]);
    expect(attacksInSim()).toHaveLength(0);
    expect(await entriesOf('approval:')).toEqual([]);
  });
});

/** The ids of the store's entries under a prefix. */
async function entriesOf(prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const [k] of stack.built.store.entries(prefix)) ids.push(k.slice(prefix.length));
  return ids;
}
