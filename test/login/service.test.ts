/**
 * The login service alone: the in-memory store, the sessions on it, the platform client against
 * the simulator, and recorders in place of Slack (the directory, the link notices, the session
 * warnings). Who gets a session and which team, what is refused before the platform is asked,
 * what a logout ends, and whom the expiry pass warns.
 */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DemoUser, Simulator } from '@faultline/platform-sim';
import { CardStore } from '../../src/attacks/cards.ts';
import type { PlatformClient } from '../../src/client/index.ts';
import type { Config } from '../../src/config.ts';
import { NotLoggedInError } from '../../src/errors.ts';
import { createLogger } from '../../src/logger.ts';
import type { ExpiryWarning } from '../../src/login/service.ts';
import type { LinkedElsewhere, SlackIdentity } from '../../src/login/service.ts';
import { personFailureLimit, resetsPerEmail } from '../../src/login/limits.ts';
import { LoginService } from '../../src/login/service.ts';
import { SessionCipher } from '../../src/store/cipher.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { keys } from '../../src/store/keys.ts';
import { type Actor, type Person, SessionStore } from '../../src/store/sessions.ts';
import { startedCard } from '../support/cards.ts';
import { platformForFile } from '../support/simulatedPlatform.ts';

let sim: Simulator;
let platform: PlatformClient;
platformForFile((backend) => ({ sim, platform } = backend));

const publicUrl = 'https://faultline.example.test';
const person = (userId: string): Actor => ({
  workspaceId: 'T0LOGIN',
  userId,
  userName: userId.toLowerCase(),
  channelId: 'C0LOGIN',
});

let store: KeyValueStore;
let offset: number;
/** Slack people by user id, as the directory describes them; one left out is one Slack cannot say. */
let slackPeople: Record<string, SlackIdentity>;
let told: { owner: SlackIdentity; linked: LinkedElsewhere }[];
let warned: { person: Person; warning: ExpiryWarning }[];

beforeEach(async () => {
  await store?.close();
  store = createKeyValueStore('memory://');
  offset = 0;
  slackPeople = {};
  told = [];
  warned = [];
});

/** The service as a deployment configures it: the Slack form and the page, logins matched to Slack e-mails. */
function service(login: Partial<Config['login']> = {}, { url }: { url: string | undefined } = { url: publicUrl }) {
  const now = () => Date.now() + offset;
  const sessions = new SessionStore(store, new SessionCipher(randomBytes(32)), now);
  const identity = (userId: string) => slackPeople[userId];
  return new LoginService({
    store,
    sessions,
    platform,
    logger: createLogger('silent'),
    clock: { now },
    directory: {
      person: async (userId) => identity(userId),
      byEmail: async (email) => Object.values(slackPeople).find((p) => p.email === email),
      workspaceName: async () => 'Acme',
    },
    linkNotices: { tell: async (owner, linked) => void told.push({ owner, linked }) },
    sessionWarnings: { warn: async (who, warning) => void warned.push({ person: who, warning }) },
    cards: new CardStore(store),
    config: {
      publicUrl: url,
      login: {
        mode: 'both',
        emailMatch: 'required',
        trustedProxies: [],
        ssoCompany: undefined,
        slackClientUrl: 'https://app.slack.com/client/',
        ...login,
      },
    },
  });
}

/** Gives the Slack person the demo user's e-mail, as their Slack profile. */
function slackPerson(actor: Actor, email: string | undefined): void {
  slackPeople[actor.userId] = { userId: actor.userId, name: actor.userName, handle: actor.userName, email };
}

const credentials = (user: DemoUser, password = user.password) => ({ email: user.email, password });
const platformCalls = (path: string) => sim.requests.filter((r) => r.path.startsWith(path)).length;

describe('logging in', () => {
  it("stores the person's own session, and chooses their team only when they have one", async () => {
    const login = service();
    const solo = person('U0SOLO');
    const owner = person('U0OWNER');
    slackPerson(solo, sim.seed.users.solo.email);
    slackPerson(owner, sim.seed.users.owner.email);
    expect(await login.logIn(solo, credentials(sim.seed.users.solo))).toMatchObject({
      kind: 'loggedIn',
      teamSelected: true,
    });
    expect((await login.current(solo))?.team?.identifier).toBe(sim.seed.teams.platform.id);
    expect(await login.logIn(owner, credentials(sim.seed.users.owner))).toMatchObject({
      kind: 'loggedIn',
      teamSelected: false,
    });
    const ownLogin = await login.require(owner);
    expect(ownLogin.session.identifier).toBe(sim.seed.users.owner.email);
    expect(ownLogin.team).toBeUndefined();
  });

  it('counts refusals, then refuses the person before the platform is asked until the window ends', async () => {
    const login = service();
    const solo = person('U0SOLO');
    slackPerson(solo, sim.seed.users.solo.email);
    for (let i = 0; i < personFailureLimit; i++)
      expect(await login.logIn(solo, credentials(sim.seed.users.solo, 'wrong'))).toEqual({
        kind: 'rejected',
        mfaCodeGiven: false,
      });
    const asked = platformCalls('/users/auth');
    expect(await login.logIn(solo, credentials(sim.seed.users.solo))).toMatchObject({ kind: 'locked' });
    expect(platformCalls('/users/auth')).toBe(asked);
    expect(await login.current(solo)).toBeUndefined();
    offset += keys.loginFailures.ttlMs + 1;
    expect(await login.logIn(solo, credentials(sim.seed.users.solo))).toMatchObject({ kind: 'loggedIn' });
  });

  it('asks for the MFA code without counting it as a failure, and logs in with it', async () => {
    const login = service();
    const sre = person('U0SRE');
    slackPerson(sre, sim.seed.users.sre.email);
    for (let i = 0; i <= personFailureLimit; i++)
      expect(await login.logIn(sre, credentials(sim.seed.users.sre))).toEqual({ kind: 'mfaRequired' });
    expect(await login.logIn(sre, { ...credentials(sim.seed.users.sre), mfaCode: sim.seed.mfaCode })).toMatchObject({
      kind: 'loggedIn',
    });
  });

  it('runs one attempt of a person at a time: another under way makes this one busy, unasked', async () => {
    const login = service();
    const solo = person('U0SOLO');
    slackPerson(solo, sim.seed.users.solo.email);
    await store.claim(keys.loginAttempt.key(solo), keys.loginAttempt.ttlMs, 'the other attempt');
    const asked = platformCalls('/users/auth');
    expect(await login.logIn(solo, credentials(sim.seed.users.solo))).toEqual({ kind: 'busy' });
    expect(platformCalls('/users/auth')).toBe(asked);
  });

  it("links a login only to the Slack person whose e-mail it is: another's password never leaves", async () => {
    const login = service();
    const solo = person('U0SOLO');
    slackPerson(solo, sim.seed.users.solo.email);
    const asked = platformCalls('/users/auth');
    expect(await login.logIn(solo, credentials(sim.seed.users.owner))).toEqual({
      kind: 'emailMismatch',
      loginEmail: sim.seed.users.owner.email,
    });
    expect(platformCalls('/users/auth')).toBe(asked);
    expect(await login.current(solo)).toBeUndefined();
    // The same address in other letters is the person's own.
    const shouted = { ...credentials(sim.seed.users.solo), email: ` ${sim.seed.users.solo.email.toUpperCase()} ` };
    expect(await login.logIn(solo, shouted)).toMatchObject({ kind: 'loggedIn' });
  });

  it('refuses, unasked, when Slack gives no e-mail to match or cannot be asked', async () => {
    const login = service();
    const noEmail = person('U0NOMAIL');
    slackPerson(noEmail, undefined);
    const asked = platformCalls('/users/auth');
    expect(await login.logIn(noEmail, credentials(sim.seed.users.solo))).toEqual({
      kind: 'emailUnknown',
      reason: 'noEmail',
    });
    expect(await login.logIn(person('U0UNKNOWN'), credentials(sim.seed.users.solo))).toEqual({
      kind: 'emailUnknown',
      reason: 'slackUnavailable',
    });
    expect(platformCalls('/users/auth')).toBe(asked);
  });

  it("with matching off, links any login, and tells the owner of the login's e-mail, not the person themselves", async () => {
    const login = service({ emailMatch: 'off' });
    const borrower = person('U0BORROW');
    const owner = person('U0OWNER');
    slackPerson(borrower, 'borrower@acme.test');
    slackPerson(owner, sim.seed.users.owner.email);
    expect(await login.logIn(borrower, credentials(sim.seed.users.owner))).toMatchObject({ kind: 'loggedIn' });
    expect(told).toEqual([
      {
        owner: slackPeople['U0OWNER'],
        linked: {
          platformUser: sim.seed.users.owner.email,
          linkedTo: { workspaceId: 'T0LOGIN', userId: 'U0BORROW', name: 'u0borrow', handle: 'u0borrow' },
          workspace: 'Acme',
        },
      },
    ]);
    expect(await login.logIn(owner, credentials(sim.seed.users.owner))).toMatchObject({ kind: 'loggedIn' });
    expect(told).toHaveLength(1);
  });
});

describe('a reset e-mail', () => {
  it("goes only to the asker's own Slack e-mail when logins are matched: any other is refused, unsent", async () => {
    const login = service();
    const solo = person('U0SOLO');
    slackPerson(solo, sim.seed.users.solo.email);
    expect(await login.resetPassword(solo, sim.seed.users.owner.email)).toEqual({ kind: 'notOwnEmail' });
    expect(platformCalls('/users/auth/password/reset')).toBe(0);
    expect(await login.resetPassword(solo, sim.seed.users.solo.email)).toEqual({ kind: 'sent' });
    expect(platformCalls('/users/auth/password/reset')).toBe(1);
  });

  it('is limited per address for others than its owner, whose own asks are still sent', async () => {
    const login = service({ emailMatch: 'off' });
    const target = sim.seed.users.owner.email;
    const owner = person('U0OWNER');
    slackPerson(owner, target);
    for (let i = 0; i < resetsPerEmail; i++) {
      const asker = person(`U0ASKER${i}`);
      slackPerson(asker, `asker${i}@acme.test`);
      expect(await login.resetPassword(asker, target)).toEqual({ kind: 'sent' });
    }
    const late = person('U0LATE');
    slackPerson(late, 'late@acme.test');
    expect(await login.resetPassword(late, target)).toMatchObject({ kind: 'limited' });
    expect(platformCalls('/users/auth/password/reset')).toBe(resetsPerEmail);
    expect(await login.resetPassword(owner, target)).toEqual({ kind: 'sent' });
  });
});

describe('logging out', () => {
  it('ends the platform session and forgets it; with nothing stored there is nothing to end', async () => {
    const login = service();
    const solo = person('U0SOLO');
    slackPerson(solo, sim.seed.users.solo.email);
    expect(await login.logOut(solo)).toEqual({ kind: 'none' });
    await login.logIn(solo, credentials(sim.seed.users.solo));
    expect(await login.logOut(solo)).toMatchObject({ kind: 'ended', platformConfirmed: true });
    expect(sim.requests.filter((r) => r.method === 'DELETE' && r.path === '/users/auth')).toHaveLength(1);
    expect(await login.current(solo)).toBeUndefined();
    await expect(login.require(solo)).rejects.toBeInstanceOf(NotLoggedInError);
  });

  it('forgets the session here even when the platform cannot confirm, and says so', async () => {
    const login = service();
    const solo = person('U0SOLO');
    slackPerson(solo, sim.seed.users.solo.email);
    await login.logIn(solo, credentials(sim.seed.users.solo));
    sim.faults.inject({ kind: 'status', status: 503, method: 'DELETE', path: '/users/auth', times: Infinity });
    expect(await login.logOut(solo)).toMatchObject({ kind: 'ended', platformConfirmed: false });
    sim.faults.clear();
    expect(await login.current(solo)).toBeUndefined();
  });

  it("lets the owner of a login's e-mail end the session it gave someone else, and nobody else", async () => {
    const login = service({ emailMatch: 'off' });
    const borrower = person('U0BORROW');
    const owner = person('U0OWNER');
    const bystander = person('U0BYSTANDER');
    slackPerson(borrower, 'borrower@acme.test');
    slackPerson(owner, sim.seed.users.owner.email);
    slackPerson(bystander, 'bystander@acme.test');
    await login.logIn(borrower, credentials(sim.seed.users.owner));
    expect(await login.endLinkedSession(borrower, bystander)).toEqual({
      outcome: { kind: 'none' },
      ownerEmail: 'bystander@acme.test',
    });
    expect(await login.current(borrower)).toBeDefined();
    expect(await login.endLinkedSession(borrower, owner)).toMatchObject({
      outcome: { kind: 'ended', platformConfirmed: true },
      ownerEmail: sim.seed.users.owner.email,
    });
    expect(await login.current(borrower)).toBeUndefined();
  });
});

describe('teams and the platform as the person', () => {
  it("selects one of the person's teams for what they do next", async () => {
    const login = service();
    const owner = person('U0OWNER');
    slackPerson(owner, sim.seed.users.owner.email);
    await login.logIn(owner, credentials(sim.seed.users.owner));
    const payments = (await login.require(owner)).session.teams.find(
      (t) => t.identifier === sim.seed.teams.payments.id,
    )!;
    await login.selectTeam(owner, payments, await login.require(owner));
    expect((await login.current(owner))?.team?.name).toBe('Payments');
  });

  it('reads single sign-on failures only with a session', async () => {
    const login = service();
    const owner = person('U0OWNER');
    slackPerson(owner, sim.seed.users.owner.email);
    await expect(login.ssoFailures(owner, sim.seed.sso.email)).rejects.toBeInstanceOf(NotLoggedInError);
    await login.logIn(owner, credentials(sim.seed.users.owner));
    const failures = await login.ssoFailures(owner, sim.seed.sso.email);
    expect(failures.map((f) => f.email)).toEqual([sim.seed.sso.email]);
  });
});

describe('the secure page', () => {
  it('is offered only with a public URL and a mode that has it', async () => {
    const solo = person('U0SOLO');
    expect(await service({ mode: 'modal' }).secureUrl(solo)).toBeUndefined();
    expect(await service({}, { url: undefined }).secureUrl(solo)).toBeUndefined();
    expect(await service({ mode: 'page' }).secureUrl(solo)).toMatch(new RegExp(`^${publicUrl}/login/[\\w-]{40,64}$`));
  });

  it('logs in the person its link was made for, once: a used link logs nobody in again', async () => {
    const login = service();
    const solo = person('U0SOLO');
    slackPerson(solo, sim.seed.users.solo.email);
    const token = (await login.secureUrl(solo))!.split('/').at(-1)!;
    const page = login.page('203.0.113.7');
    const found = await page.find(token);
    if (!('link' in found)) throw new Error(`the link was refused: ${found.kind}`);
    const visit = await page.open(found, undefined, 'page');
    if (!('actor' in visit)) throw new Error(`the page was refused: ${visit.kind}`);
    expect(visit.actor.userId).toBe('U0SOLO');
    const form = { ...credentials(sim.seed.users.solo), company: undefined, mfaCode: undefined };
    expect(await page.logIn(visit, form)).toMatchObject({ kind: 'loggedIn', team: 'Platform' });
    expect(await login.current(solo)).toBeDefined();
    expect(await login.page('203.0.113.7').find(token)).toEqual({ kind: 'expired' });
  });

  it('opens a link for the first browser only', async () => {
    const login = service();
    const token = (await login.secureUrl(person('U0SOLO')))!.split('/').at(-1)!;
    const page = login.page('203.0.113.7');
    const found = await page.find(token);
    if (!('link' in found)) throw new Error(`the link was refused: ${found.kind}`);
    expect(await page.open(found, 'first-browser-secret', 'page')).toHaveProperty('actor');
    const again = await login.page('198.51.100.2').find(token);
    if (!('link' in again)) throw new Error(`the link was refused: ${again.kind}`);
    expect(await login.page('198.51.100.2').open(again, 'second-browser-secret', 'page')).toEqual({
      kind: 'openedElsewhere',
    });
  });
});

describe('the expiry pass', () => {
  async function liveCard(guid: string, startedBy: Actor, fields: Partial<Parameters<typeof startedCard>[0]> = {}) {
    await new CardStore(store).saveStarted(
      startedCard({
        guid,
        teamId: sim.seed.teams.platform.id,
        teamName: 'Platform',
        channel: 'C0LOGIN',
        ts: `1.${guid}`,
        startedBy,
        ...fields,
      }),
    );
  }

  it('warns, once per session, whoever started live attacks when their session ends within ten minutes', async () => {
    const login = service();
    const solo = person('U0SOLO');
    const owner = person('U0OWNER');
    slackPerson(solo, sim.seed.users.solo.email);
    slackPerson(owner, sim.seed.users.owner.email);
    await login.logIn(solo, credentials(sim.seed.users.solo));
    const ends = (await login.require(solo)).expiresAt.getTime();
    await liveCard('a1', solo);
    await liveCard('a2', solo);
    await liveCard('a3', solo, { lifecycle: 'Complete', stage: 'End' });
    // A card a watch posted was not started by its reader: it earns them no warning.
    await liveCard('w1', owner, { origin: { source: 'WebApp', user: 'someone' } });
    offset = ends - Date.now() - 11 * 60_000;
    expect(await login.warnExpiringSessions()).toBe(0);
    await login.logIn(owner, credentials(sim.seed.users.owner));
    offset = ends - Date.now() - 5 * 60_000;
    expect(await login.warnExpiringSessions()).toBe(1);
    expect(warned).toEqual([
      {
        person: { workspaceId: 'T0LOGIN', userId: 'U0SOLO', userName: 'u0solo', channelId: 'C0LOGIN' },
        warning: {
          expiresAt: new Date(ends),
          liveAttacks: 2,
          secureUrl: expect.stringMatching(`^${publicUrl}/login/`),
        },
      },
    ]);
    expect(await login.warnExpiringSessions()).toBe(0);
    expect(warned).toHaveLength(1);
  });
});
