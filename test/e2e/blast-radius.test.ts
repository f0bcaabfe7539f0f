import { describe, expect, it } from 'vitest';
import { Stack, stackForFile } from './harness.ts';

/**
 * What an attack will hit: the preview resolves its target against the team's active clients
 * (the simulator's GET /clients), refuses one that matches nothing, and every start resolves it
 * again and refuses a set that grew since the preview or the approval.
 */
const read = Stack.read;
const channel = 'C0BLAST';
let stack: Stack;
stackForFile({ env: { ATTACK_CHANNELS: channel, APPROVAL_RULES: 'length>300' } }, (started) => (stack = started));

let n = 0;
const users = () => stack.sim.seed.users;
const platformTeam = () => stack.sim.seed.teams.platform.id;
const creates = () => stack.sim.requests.filter((r) => r.method === 'POST' && r.path === '/attacks/new').length;
const attacksInSim = () => [...stack.sim.state.attacks.values()];
/** A host that joins the Platform team for one test: names are unique across the file's tests. */
const newHost = (tags: Record<string, string>) => {
  const id = `platform-extra-${++n}`;
  stack.sim.clients.addHost(platformTeam(), id, tags);
  return id;
};

async function loggedIn(user: 'owner' | 'solo' = 'owner') {
  const id = `U0BLAST${++n}`;
  await stack.login(id, users()[user], user === 'owner' ? { team: 'Platform' } : {});
  return id;
}

/** The reply to the person after a click, once it says `words`. */
const replySaying = (id: string, words: string) =>
  stack.fake.waitFor(
    () =>
      stack
        .person(id)
        .ephemerals(channel)
        .findLast((m) => read(m).includes(words)),
    `a reply saying “${words}”`,
  );

describe('the preview names its blast radius', () => {
  it('counts the hosts a tag matches out of the team’s, and names them', async () => {
    const id = await loggedIn();
    const preview = await stack.ask(id, 'attack cpu -l 30 --target-tags role=web', { channel });
    expect(read(preview)).toContain('Blast radius: 2 of 4 hosts');
    expect(read(preview)).toContain('platform-web-1, platform-web-2');
    expect(preview.buttons().map((b) => b.text)).toEqual(['Start', 'Cancel']);
  });

  it('says in bold when a target matches every active client', async () => {
    const id = await loggedIn();
    const preview = await stack.ask(id, 'attack cpu -l 30 --target-tags os=linux', { channel });
    // Bold in Slack's mrkdwn: the whole sentence between asterisks.
    expect(preview.text()).toMatch(/\*It matches every active host of team Platform: (\d+) of \1 hosts\.\*/);
  });

  it('refuses a typo’d tag at the preview with a suggestion, and offers no Start', async () => {
    const id = await loggedIn();
    const before = creates();
    const reply = await stack.ask(id, 'attack cpu -l 30 --target-tags role=webb', { channel });
    expect(read(reply)).toContain('No active host of team Platform matches all hosts tagged role=webb');
    expect(read(reply)).toContain('Did you mean role=web?');
    expect(reply.buttons()).toEqual([]);
    expect(creates()).toBe(before);
  });

  it('refuses a misspelt host with --yes too, before anything is created', async () => {
    const id = await loggedIn();
    const before = creates();
    const reply = await stack.ask(id, 'attack cpu -l 30 --target-hosts platform-wbe-1 --yes', { channel });
    expect(read(reply)).toContain('Did you mean platform-web-1?');
    expect(creates()).toBe(before);
  });

  it('names a listed host that is not an active client, with the one it is near', async () => {
    const id = await loggedIn();
    const preview = await stack.ask(id, 'attack cpu -l 30 --target-hosts platform-web-1,platform-wbe-2', { channel });
    expect(read(preview)).toContain('Blast radius: 1 of');
    expect(read(preview)).toContain(
      'Not an active host of the team, so not hit: platform-wbe-2 (did you mean platform-web-2?)',
    );
  });

  it('starts nothing when the team’s clients cannot be read, and says so', async () => {
    const id = await loggedIn();
    const before = creates();
    stack.sim.faults.inject({ method: 'GET', path: '/clients', kind: 'status', status: 503, times: 10 });
    try {
      const reply = await stack.ask(id, 'attack cpu -l 30 --target-tags role=web --yes', { channel });
      expect(read(reply)).toContain("read the team's clients");
      expect(reply.buttons().map((b) => b.text)).not.toContain('Start');
    } finally {
      stack.sim.faults.clear();
    }
    expect(creates()).toBe(before);
  });

  it('says a service target is resolved by the platform when the attack is created', async () => {
    const id = await loggedIn();
    const service = stack.sim.seed.service.id;
    const preview = await stack.ask(id, `attack cpu -l 30 --target-service ${service}`, { channel });
    expect(read(preview)).toContain('the platform resolves a service to its targets when the attack is created');
  });
});

describe('the drift guard', () => {
  it('a start without a preview resolves the target and records the set it checked', async () => {
    const id = await loggedIn();
    const { attack } = await stack.startAttack(id, 'attack cpu -l 30 --target-tags role=web', channel);
    const started = stack.logs.find((l) => l['audit'] === 'attack_started' && l['attack'] === attack.guid);
    expect(started?.['resolved']).toEqual({
      kind: 'Host',
      hits: 2,
      outOf: expect.any(Number),
      matches: ['platform-web-1', 'platform-web-2'],
    });
  });

  it('refuses a Start when the set grew since the preview, showing the difference', async () => {
    const id = await loggedIn();
    const tag = `drill-${n}`;
    stack.sim.clients.addHost(platformTeam(), `${tag}-a`, { drill: tag });
    stack.sim.clients.addHost(platformTeam(), `${tag}-b`, { drill: tag });
    const preview = await stack.ask(id, `attack cpu -l 30 --target-tags drill=${tag}`, { channel });
    expect(read(preview)).toContain(`${tag}-a, ${tag}-b`);

    const joined = newHost({ drill: tag });
    const before = creates();
    await preview.click('Start');
    const refusal = await replySaying(id, 'The target changed');
    expect(read(refusal)).toContain('The target changed since the preview.');
    expect(read(refusal)).toContain(`It now matches 3 hosts, not 2. New: ${joined}.`);
    expect(creates()).toBe(before);
  });

  it('starts when the set only shrank since the preview', async () => {
    const id = await loggedIn();
    const tag = `drill-${n}`;
    const [a, b] = [`${tag}-a`, `${tag}-b`];
    for (const host of [a, b]) stack.sim.clients.addHost(platformTeam(), host, { drill: tag });
    const preview = await stack.ask(id, `attack cpu -l 30 --target-tags drill=${tag}`, { channel });
    expect(read(preview)).toContain(`${a}, ${b}`);
    stack.sim.clients.setActive(b, false);
    await preview.click('Start');
    await replySaying(id, 'Started');
    expect(attacksInSim().at(-1)!.targets).toEqual([a]);
  });

  it('checks a random count by how many it hits', async () => {
    const id = await loggedIn();
    const tag = `drill-${n}`;
    newHost({ drill: tag });
    // Two of one host: one is hit now, two once another host joins, which the preview did not show.
    const preview = await stack.ask(id, `attack cpu -l 30 --target-tags drill=${tag} --target-count 2`, { channel });
    expect(read(preview)).toContain('Blast radius: 1 of');
    newHost({ drill: tag });
    const before = creates();
    await preview.click('Start');
    const refusal = await replySaying(id, 'The target changed');
    expect(read(refusal)).toContain('It now hits 2 hosts, not 1 (2 hosts match, the count is 2).');
    expect(creates()).toBe(before);

    // A count the pool already filled: a new host changes which may be picked, not how many.
    const full = await stack.ask(id, `attack cpu -l 30 --target-tags drill=${tag} --target-count 1`, { channel });
    newHost({ drill: tag });
    await full.click('Start');
    await replySaying(id, 'Started');
  });

  it('an approval for 2 hosts does not cover 3', async () => {
    const requester = await loggedIn('owner');
    const approver = await loggedIn('solo');
    const tag = `drill-${n}`;
    newHost({ drill: tag });
    newHost({ drill: tag });
    const preview = await stack.ask(requester, `attack cpu -l 600 --target-tags drill=${tag}`, { channel });
    expect(read(preview)).toContain('Blast radius: 2 of');
    await preview.click('Request approval');
    const request = await stack.fake.waitFor(
      () =>
        stack
          .person(approver)
          .channel(channel)
          .messages()
          .findLast((m) => read(m).includes('asks to start') && m.buttons().some((b) => b.text === 'Approve')),
      'the request',
    );
    expect(read(request)).toContain('Blast radius: 2 of');
    expect(read(request)).toContain('Approving covers these, not more');
    const joined = newHost({ drill: tag });
    const before = creates();
    await request.click('Approve');
    const closed = await stack.fake.waitFor(
      () =>
        stack.fake
          .channel(channel)
          .messages()
          .find((m) => m.ts === request.ts && read(m).includes('since it was approved')),
      'the request closed with the refusal',
    );
    expect(read(closed)).toContain(`New: ${joined}.`);
    expect(read(closed)).toContain('The approval covers the 2 hosts it was for, not more');
    expect(creates()).toBe(before);
  });
});
