/**
 * The tickets' service alone: the in-memory store, the sessions, cards and game days on it, the
 * platform client against the simulator, and recorders in place of Slack (the recorder, message
 * links and names). What a ticket may be about and for whom, whose draft is whose, and that a
 * ticket is filed once with the person's own session, refused or not.
 */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DemoUser, Simulator } from '@faultline/platform-sim';
import type { AttackEvent } from '../../src/attacks/events.ts';
import type { CardStore } from '../../src/attacks/cards.ts';
import { AttackNotFoundError } from '../../src/attacks/access.ts';
import { BadRequestError, ForbiddenError } from '../../src/client/errors.ts';
import type { PlatformClient } from '../../src/client/index.ts';
import { NotLoggedInError, UserInputError } from '../../src/errors.ts';
import type { GameDays } from '../../src/gamedays/gamedays.ts';
import { createLogger } from '../../src/logger.ts';
import { SessionCipher } from '../../src/store/cipher.ts';
import { createKeyValueStore, type KeyValueStore } from '../../src/store/keyValue.ts';
import { type Actor, SessionStore } from '../../src/store/sessions.ts';
import { type TicketDraft, TicketService, type TicketSubject } from '../../src/tickets/service.ts';
import { startedCard } from '../support/cards.ts';
import { platformForFile } from '../support/simulatedPlatform.ts';
import { gameDaysOn } from '../gamedays/setup.ts';

let sim: Simulator;
let platform: PlatformClient;
platformForFile((backend) => ({ sim, platform } = backend));

const channel = 'C0TICKETS';
const person = (userId: string): Actor => ({
  workspaceId: 'T0TICKETS',
  userId,
  userName: userId.toLowerCase(),
  channelId: channel,
});

let store: KeyValueStore;
let sessions: SessionStore;
let cards: CardStore;
let gameDays: GameDays;
/** What the service recorded, in order. */
let recorded: AttackEvent[];

beforeEach(async () => {
  await store?.close();
  store = createKeyValueStore('memory://');
  sessions = new SessionStore(store, new SessionCipher(randomBytes(32)));
  recorded = [];
  ({ cards, gameDays } = gameDaysOn(store, { seen: [], channel, now: Date.now }));
});

/** The service, with the tracker's project and issue type configured or not. */
function service(tracker: { projectId?: string; issueTypeId?: string } = {}) {
  return new TicketService({
    store,
    sessions,
    platform,
    cards,
    gameDays,
    recorder: {
      record: async (event) => {
        recorded.push(event);
        return undefined;
      },
    },
    logger: createLogger('silent'),
    links: { permalink: async (at, ts) => `https://slack.example/archives/${at}/p${ts}` },
    directory: { names: async (ids) => Object.fromEntries([...ids].map((id) => [id, `name of ${id}`])) },
    tracker: { projectId: tracker.projectId, issueTypeId: tracker.issueTypeId },
  });
}

/** A Slack person logged in to the platform as a demo user, with the Platform team selected when they have it. */
async function login(userId: string, user: DemoUser): Promise<Actor> {
  const actor = person(userId);
  const session = await platform.auth.login({ email: user.email, password: user.password });
  await sessions.save(actor, session);
  if (session.teams.some((team) => team.identifier === sim.seed.teams.platform.id))
    await sessions.selectTeam(actor, sim.seed.teams.platform.id);
  return actor;
}

/** An attack running in the Platform team, with its card as a start posted it and one halt asked. */
async function attackWithCard(startedBy: Actor): Promise<string> {
  const [guid] = sim.addAttacks(sim.seed.teams.platform.id, 1);
  await cards.saveStarted(
    startedCard({
      guid: guid!,
      teamId: sim.seed.teams.platform.id,
      teamName: 'Platform',
      channel,
      ts: '1700000000.000100',
      startedBy,
      haltedBy: [{ userId: 'U0HALTER', at: new Date().toISOString() }],
    }),
  );
  return guid!;
}

/** Fields the tracker's Operations incidents take: a priority and an environment besides the summary. */
const incident = (summary = 'Checkout slowed past its objective') => ({
  summary,
  project: { id: sim.seed.tracker.projectId },
  issuetype: { id: sim.seed.tracker.issueTypeId },
  priority: { id: '3' },
  customfield_10050: { id: '20001' },
});

const text = { summary: 'Checkout slowed past its objective', description: 'Seen in the drill.' };
const configured = () => ({ projectId: sim.seed.tracker.projectId, issueTypeId: sim.seed.tracker.issueTypeId });
const filedInTracker = () => sim.state.trackerIssues.length;

async function draftAbout(tickets: TicketService, actor: Actor, guid: string): Promise<TicketDraft> {
  const subject = await (await tickets.about(actor, { guid })).read();
  return (await tickets.draft(actor, subject, text)).draft;
}

describe('what a ticket may be about', () => {
  it('asks a person with no session to log in before anything is read', async () => {
    const tickets = service();
    await expect(tickets.about(person('U0NOBODY'), { guid: 'anything' })).rejects.toBeInstanceOf(NotLoggedInError);
    await expect(tickets.list(person('U0NOBODY'), 'anything')).rejects.toBeInstanceOf(NotLoggedInError);
  });

  it("reads an attack of the person's teams with its card, its link and the names of who started and halted it", async () => {
    const owner = await login('U0OWNER', sim.seed.users.owner);
    const guid = await attackWithCard(owner);
    const subject = await (await service().about(owner, { guid })).read();
    expect(subject).toMatchObject({
      guid,
      team: { identifier: sim.seed.teams.platform.id },
      attack: { guid },
      card: { guid, channel },
      permalink: `https://slack.example/archives/${channel}/p1700000000.000100`,
      names: { U0OWNER: 'name of U0OWNER', U0HALTER: 'name of U0HALTER' },
    });
  });

  it("finds no attack of another company's team: nothing is drafted", async () => {
    const owner = await login('U0OWNER', sim.seed.users.owner);
    const guid = await attackWithCard(owner);
    const outsider = await login('U0GLOBEX', sim.seed.users.globex);
    const about = await service().about(outsider, { guid });
    await expect(about.read()).rejects.toBeInstanceOf(AttackNotFoundError);
  });

  it('refuses a game day that is no longer kept, saying so', async () => {
    const owner = await login('U0OWNER', sim.seed.users.owner);
    const refused = service().about(owner, { gameDay: { channel, ts: '9.9' } });
    await expect(refused).rejects.toBeInstanceOf(UserInputError);
    await expect(refused).rejects.toThrow('That game day is no longer kept, so a ticket cannot be filed from it.');
  });

  it("drafts a running game day's ticket for its timeline, and an ended one's for nobody's", async () => {
    const owner = await login('U0OWNER', sim.seed.users.owner);
    const tickets = service();
    const { record: started } = await gameDays.start(channel, 'Failover drill', 'U0OWNER', {
      id: 'team-x',
      name: 'Platform',
    });
    if (!started) throw new Error('the game day did not start');
    const ref = { channel, ts: started.ts };
    const running = await (await tickets.about(owner, { gameDay: ref })).read();
    expect(running).toMatchObject({ gameDay: { title: 'Failover drill' }, names: { U0OWNER: 'name of U0OWNER' } });
    const { draft } = await tickets.draft(owner, running, text);
    expect(draft).toMatchObject({
      entity: { id: started.id, type: 'GAME_DAY' },
      teamId: sim.seed.teams.platform.id,
      gameDayChannel: channel,
    });
    await gameDays.end(channel);
    const ended = await (await tickets.about(owner, { gameDay: ref })).read();
    expect((await tickets.draft(owner, ended, text)).draft.gameDayChannel).toBeUndefined();
  });
});

describe('a draft', () => {
  it('is kept for the person who opened the form, and nobody else', async () => {
    const owner = await login('U0OWNER', sim.seed.users.owner);
    const tickets = service();
    const guid = await attackWithCard(owner);
    const subject: TicketSubject = await (await tickets.about(owner, { guid })).read();
    const form = await tickets.draft(owner, subject, text);
    // No project configured: the form asks for one before the tracker's fields are read.
    expect(form).toEqual({ draft: form.draft, projectId: undefined, issueTypeId: undefined });
    expect(form.draft).toMatchObject({
      entity: { id: guid, type: 'ATTACK' },
      card: { guid, channel },
      teamId: sim.seed.teams.platform.id,
      ...text,
    });
    expect(await tickets.draftOf(owner, form.draft.id)).toEqual(form.draft);
    expect(await tickets.draftOf(person('U0OTHER'), form.draft.id)).toBeUndefined();
    expect(await tickets.draftOf({ ...owner, workspaceId: 'T0ELSEWHERE' }, form.draft.id)).toBeUndefined();
  });

  it("with the project configured, comes with the tracker's fields and labels, which the kept draft keeps", async () => {
    const owner = await login('U0OWNER', sim.seed.users.owner);
    const tickets = service(configured());
    const guid = await attackWithCard(owner);
    const form = await tickets.draft(owner, await (await tickets.about(owner, { guid })).read(), text);
    expect(form.fields?.meta.fields.map((field) => field.key)).toContain('customfield_10050');
    expect(form.fields?.labels.length).toBeGreaterThan(0);
    expect(await tickets.draftOf(owner, form.draft.id)).toMatchObject({ ...configured(), meta: form.fields?.meta });
  });
});

describe('filing', () => {
  it("files once with the person's own session, however often it is submitted, and records it", async () => {
    const owner = await login('U0OWNER', sim.seed.users.owner);
    const tickets = service(configured());
    const guid = await attackWithCard(owner);
    const draft = await draftAbout(tickets, owner, guid);
    const filed = await tickets.file(owner, draft, incident());
    expect(filed).toEqual({ kind: 'filed', issue: { key: 'OPS-1', url: expect.stringContaining('OPS-1') } });
    expect(await tickets.file(owner, draft, incident())).toEqual({ kind: 'taken' });
    expect(filedInTracker()).toBe(1);
    expect(recorded).toEqual([
      {
        kind: 'ticket',
        by: owner,
        platformUser: sim.seed.users.owner.email,
        teamId: sim.seed.teams.platform.id,
        ticket: { key: 'OPS-1', url: expect.any(String) },
        attack: guid,
        gameDay: undefined,
        card: guid,
        gameDayChannel: channel,
      },
    ]);
    expect(await tickets.list(owner, guid)).toMatchObject({ guid, issues: [{ key: 'OPS-1' }] });
  });

  it('lets the person correct a form the tracker refused and submit it again', async () => {
    const owner = await login('U0OWNER', sim.seed.users.owner);
    const tickets = service(configured());
    const draft = await draftAbout(tickets, owner, await attackWithCard(owner));
    const { priority: _, ...noPriority } = incident();
    const refused = await tickets.file(owner, draft, noPriority);
    expect(refused).toMatchObject({ kind: 'refused', team: { identifier: sim.seed.teams.platform.id } });
    expect((refused as { error: unknown }).error).toBeInstanceOf(BadRequestError);
    expect(recorded).toEqual([]);
    expect(await tickets.file(owner, draft, incident())).toMatchObject({ kind: 'filed' });
    expect(filedInTracker()).toBe(1);
  });

  it('files after a log in again, when the session ended between the form and its submission', async () => {
    const owner = await login('U0OWNER', sim.seed.users.owner);
    const tickets = service(configured());
    const draft = await draftAbout(tickets, owner, await attackWithCard(owner));
    await sessions.drop(owner);
    await expect(tickets.file(owner, draft, incident())).rejects.toBeInstanceOf(NotLoggedInError);
    await login('U0OWNER', sim.seed.users.owner);
    expect(await tickets.file(owner, draft, incident())).toMatchObject({ kind: 'filed' });
    expect(filedInTracker()).toBe(1);
  });

  it('refuses, filing nothing, a person whose own session may not write to the tracker', async () => {
    const owner = await login('U0OWNER', sim.seed.users.owner);
    const observer = await login('U0OBSERVER', sim.seed.users.observer);
    const tickets = service(configured());
    const draft = await draftAbout(tickets, observer, await attackWithCard(owner));
    const refused = await tickets.file(observer, draft, incident());
    expect(refused.kind).toBe('refused');
    expect((refused as { error: unknown }).error).toBeInstanceOf(ForbiddenError);
    expect(filedInTracker()).toBe(0);
    expect(recorded).toEqual([]);
  });

  it('keeps a submission whose outcome is unknown from filing twice', async () => {
    const owner = await login('U0OWNER', sim.seed.users.owner);
    const tickets = service(configured());
    const draft = await draftAbout(tickets, owner, await attackWithCard(owner));
    sim.faults.inject({ kind: 'status', status: 503, method: 'POST', path: '/tracker/issues', times: Infinity });
    expect(await tickets.file(owner, draft, incident())).toMatchObject({ kind: 'unknown' });
    sim.faults.clear();
    expect(await tickets.file(owner, draft, incident())).toEqual({ kind: 'taken' });
    expect(recorded).toEqual([]);
  });
});
