import { describe, expect, it } from 'vitest';
import { monitoringEnv, Stack, stackForFile } from './harness.ts';

/**
 * A mistyped flag never runs the command as if it were not there: every subcommand refuses it,
 * names the flag it most likely meant, shows its usage, and does nothing at all.
 */
const read = Stack.read;
const channel = 'C0GENERAL';
let stack: Stack;
stackForFile({ env: { ...monitoringEnv } }, (started) => (stack = started));

let n = 0;
const nextPerson = () => `U0FLAGS${++n}`;

/** Requests that would change something on the platform; reads are allowed (an attack's metadata). */
const changes = (since: number) =>
  stack.sim.requests
    .slice(since)
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path}`);

/** Everything a command could have left behind in the bot or in the channel. */
async function traces(id: string) {
  return {
    messages: stack.fake.channel(channel).messages().length,
    modals: stack.fake.callsTo('views.open').length,
    session: (await stack.built.sessions.get({ workspaceId: stack.fake.teamId, userId: id }))?.session.identifier,
    freezes: (await stack.built.services.guardrails.freezes.touching([...stack.sim.state.teams.keys()])).length,
    watches: (await stack.built.services.attacks.watches.inChannel(channel)).length,
    gameDay: (await stack.built.services.gamedays.days.running(channel))?.title,
  };
}

describe('a misspelt flag', () => {
  it.each([
    ['halt {id} --reasn "too hot"', '--reasn', 'halt', '--reason'],
    ['list --sorce Scenario', '--sorce', 'list', '--source'],
    ['list completed --k8', '--k8', 'list', '--k8s'],
    ['show {id} --verbos', '--verbos', 'show', undefined],
    ['note --tex {id} p99 doubled', '--tex', 'note', undefined],
    ['ticket {id} --projct OPS', '--projct', 'ticket', undefined],
    ['tickets {id} --al', '--al', 'tickets', undefined],
    ['freeze --tem Platform --reason drill', '--tem', 'freeze', '--team'],
    ['freeze --reasn drill', '--reasn', 'freeze', '--reason'],
    ['unfreeze --al', '--al', 'unfreeze', '--all'],
    ['watch --tem Platform', '--tem', 'watch', '--team'],
    ['unwatch --tem Platform', '--tem', 'unwatch', '--team'],
    ['gameday start Checkout drill --gaurd a:1234567', '--gaurd', 'gameday', '--guard'],
    ['gameday guard --gaurd a:1234567', '--gaurd', 'gameday', '--guard'],
    ['gameday status --verbos', '--verbos', 'gameday', undefined],
    ['gameday end --forc', '--forc', 'gameday', undefined],
    ['gameday report --al', '--al', 'gameday', undefined],
    ['attack cpu -l 30 --tema Platform --yes', '--tema', 'attack', '--team'],
    ['attack cpu -l 30 --ye', '--ye', 'attack', '--yes'],
    ['attack cpu -l 30 --target-tag role=web --yes', '--target-tag', 'attack', '--target-tags'],
    ['attack cpu -l 30 --gaurd a:1234567 --yes', '--gaurd', 'attack', '--guard'],
    ['halt all --reasn "too hot"', '--reasn', 'halt', undefined],
    ['help --al', '--al', 'help', undefined],
    ['login --emial someone@example.com', '--emial', 'login', undefined],
    ['logout --al', '--al', 'logout', undefined],
    ['whoami --verbos', '--verbos', 'whoami', undefined],
    ['team --tem Platform', '--tem', 'team', undefined],
    ['status --al', '--al', 'status', undefined],
  ])('“%s” is refused, and nothing is done', async (template, typed, usage, meant) => {
    const id = nextPerson();
    await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
    const attack = stack.sim.createAttackDirectly(stack.sim.seed.teams.platform.id, {
      type: 'cpu',
      args: ['-l', '300'],
    });
    const before = await traces(id);
    const since = stack.sim.requests.length;

    const reply = read(await stack.ask(id, template.replace('{id}', attack), { channel }));
    expect(reply).toContain(typed);
    expect(reply).toContain(meant ? `Did you mean ${meant}?` : 'it takes none');
    expect(reply).toContain(`Usage: /chaos ${usage}`);
    expect(changes(since)).toEqual([]);
    expect(stack.sim.state.attacks.get(attack)!.halt).toBeUndefined();
    expect(stack.sim.state.attacks.size).toBe(1);
    expect(await traces(id)).toEqual(before);
  });
});

describe('a flag without its value, a switch with one, or a word too many', () => {
  it.each([
    ['halt {id} --reason', '--reason needs some text', 'halt'],
    ['halt {id} --reason "too hot" --reason "way too hot"', '--reason is given more than once', 'halt'],
    ['halt {id} too hot', 'Put the reason after --reason', 'halt'],
    ['list --k8s=yes', '--k8s takes no value', 'list'],
    ['list completed now', 'attacks, not “now”', 'list'],
    ['unfreeze --all=yes', '--all takes no value', 'unfreeze'],
    ['watch --team', '--team needs the name of one of your teams', 'watch'],
    ['show {id} {id}', 'show does not take', 'show'],
    ['whoami me', 'whoami does not take “me”', 'whoami'],
    ['logout now', 'logout does not take “now”', 'logout'],
    ['gameday end now', 'gameday end does not take “now”', 'gameday'],
    ['gameday guard --guard', '--guard needs a guard', 'gameday'],
    ['attack cpu -l 30 --yes=no', '--yes takes no value', 'attack'],
  ])('“%s” is refused, and nothing is done', async (template, words, usage) => {
    const id = nextPerson();
    await stack.login(id, stack.sim.seed.users.owner, { team: 'Platform' });
    const attack = stack.sim.createAttackDirectly(stack.sim.seed.teams.platform.id, {
      type: 'cpu',
      args: ['-l', '300'],
    });
    const before = await traces(id);
    const since = stack.sim.requests.length;

    const reply = read(await stack.ask(id, template.replaceAll('{id}', attack), { channel }));
    expect(reply).toContain(words);
    expect(reply).toContain(`Usage: /chaos ${usage}`);
    expect(changes(since)).toEqual([]);
    expect(stack.sim.state.attacks.get(attack)!.halt).toBeUndefined();
    expect(stack.sim.state.attacks.size).toBe(1);
    expect(await traces(id)).toEqual(before);
  });
});
