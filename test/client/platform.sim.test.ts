/**
 * The client against the platform simulator over real HTTPS: every endpoint the client wraps,
 * the error texts the platform uses, and the faults the simulator can play.
 */
import { type Simulator, startSimulator } from '@faultline/platform-sim';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isFinished } from '../../src/attacks/lifecycle.ts';
import {
  BadRequestError,
  builtInCatalogue,
  type CallContext,
  createPlatformClient,
  ForbiddenError,
  NoIntegrationError,
  NotFoundError,
  alertHealth,
  monitorHealth,
  RateLimitedError,
  type PlatformClient,
  type PlatformClientOptions,
  take,
  TimeoutError,
  UnauthorizedError,
  UnreachableError,
} from '../../src/client/index.ts';

let sim: Simulator;
let dispatcher: Agent;
let platform: PlatformClient;
let sleeps: number[];

function clientFor(baseUrl: string, options: Partial<PlatformClientOptions> = {}): PlatformClient {
  return createPlatformClient({
    baseUrl,
    dispatcher,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
}

beforeAll(async () => {
  sim = await startSimulator();
  dispatcher = new Agent({ connect: { ca: sim.ca } });
  platform = clientFor(sim.url);
});

afterAll(async () => {
  await platform?.close();
  await dispatcher?.close();
  await sim?.stop();
});

beforeEach(() => {
  sim.reset();
  sleeps = [];
});

type UserKey = 'owner' | 'sre' | 'observer' | 'solo' | 'globex';
type TeamKey = 'platform' | 'payments' | 'search';

const teamId = (team: TeamKey) => sim.seed.teams[team].id;

/** A company session of the user, scoped to one of the seed's teams. */
async function as(user: UserKey, team: TeamKey = 'platform'): Promise<CallContext> {
  const { email, password } = sim.seed.users[user];
  const mfaCode = user === 'sre' ? sim.seed.mfaCode : undefined;
  const session = await platform.auth.login({ email, password, mfaCode });
  return { header: session.header, teamId: teamId(team) };
}

const cpu = (seconds = 60) => ({
  command: { type: 'cpu', args: ['-l', String(seconds), '-c', '1'] },
  target: { type: 'Random' as const },
});

/** Requests the simulator received for a path (after /v1) and method. */
const received = (method: string, path: string) => sim.requests.filter((r) => r.method === method && r.path === path);

describe('auth', () => {
  it('logs in with a company session listing the teams', async () => {
    const { email, password } = sim.seed.users.owner;
    const session = await platform.auth.login({ email, password });

    expect(session.header).toMatch(/^Bearer \S+/);
    expect(session.company_name).toBe('Acme Demo');
    expect(session.identifier).toBe(email);
    expect(session.teams.map((t) => t.identifier).sort()).toEqual(
      [teamId('platform'), teamId('payments'), teamId('search')].sort(),
    );
    expect(session.privileges).toContain('HALT_ALL');
  });

  it('asks an MFA user for the code, and refuses a wrong password or code', async () => {
    const { email, password } = sim.seed.users.sre;
    await expect(platform.auth.login({ email, password })).rejects.toMatchObject({
      name: 'UnauthorizedError',
      reason: 'mfa_required',
    });
    await expect(platform.auth.login({ email, password, mfaCode: '000000' })).rejects.toMatchObject({
      reason: 'invalid_credentials',
    });
    await expect(platform.auth.login({ email, password: 'wrong' })).rejects.toMatchObject({
      reason: 'invalid_credentials',
    });
    const session = await platform.auth.login({ email, password, mfaCode: sim.seed.mfaCode });
    expect(session.teams).toHaveLength(2);
  });

  it('refuses a session past its expiry', async () => {
    const ctx = await as('solo');
    expect(sim.expireSession(sim.seed.users.solo.email)).toBe(1);
    await expect(platform.as(ctx).attacks.listActive()).rejects.toMatchObject({
      name: 'UnauthorizedError',
      reason: 'session',
    });
  });

  it('refuses the session after logout', async () => {
    const ctx = await as('solo');
    await platform.auth.logout(ctx);
    await expect(platform.as(ctx).attacks.listActive()).rejects.toMatchObject({
      name: 'UnauthorizedError',
      reason: 'session',
    });
    expect(received('DELETE', '/users/auth')[0]?.teamId).toBeUndefined();
  });

  it('requests a password reset', async () => {
    await platform.auth.resetPassword(sim.seed.users.solo.email);
    expect(received('POST', '/users/auth/password/reset').map((r) => r.status)).toEqual([200]);
  });

  it('refuses auth over plain HTTP with httpsRequired', async () => {
    const plain = clientFor(sim.httpUrl);
    const { email, password } = sim.seed.users.owner;
    const failure = await plain.auth.login({ email, password }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ForbiddenError);
    expect((failure as ForbiddenError).httpsRequired).toBe(true);
  });
});

describe('attacks', () => {
  it('creates an attack answering 201 with its guid as text', async () => {
    const ctx = await as('owner');
    const guid = await platform.as(ctx).attacks.create(cpu());

    expect(guid).toMatch(/^[0-9a-f-]{36}$/);
    expect(received('POST', '/attacks/new').map((r) => [r.status, r.teamId])).toEqual([[201, teamId('platform')]]);
    const attack = await platform.as(ctx).attacks.get(guid);
    expect(attack).toMatchObject({ guid, org_id: teamId('platform'), source: 'Adhoc', infra_command: { type: 'cpu' } });
    expect(attack.args).toEqual(['-l', '60', '-c', '1']);
    expect(attack.targets.length).toBeGreaterThan(0);
  });

  it('lists active and completed attacks, by source and page size', async () => {
    const attacks = platform.as(await as('owner')).attacks;
    const short = await attacks.create(cpu(30));
    sim.clock.advance(120_000);
    const running = await attacks.create(cpu(600));
    const another = await attacks.create(cpu(600));

    const guids = (list: { guid: string }[]) => list.map((a) => a.guid).sort();
    expect(guids(await attacks.listActive())).toEqual([another, running].sort());
    expect(guids(await attacks.listCompleted())).toEqual([short]);
    expect(await attacks.listActive({ source: 'Scenario' })).toEqual([]);
    const limited = await attacks.listActive({ source: 'Adhoc', pageSize: 1 });
    expect(limited).toHaveLength(1);
    expect([another, running]).toContain(limited[0]?.guid);
    expect((await attacks.listCompleted({ source: 'Adhoc' }))[0]?.stage_lifecycle).toBe('Complete');
  });

  it('pages through 2,500 active attacks with the iterator and page by page', async () => {
    const guids = sim.addAttacks(teamId('platform'), 2_500);
    const attacks = platform.as(await as('owner')).attacks;

    const first = await take(attacks.iterateActive({ pageSize: 1000 }), 10);
    expect(first).toHaveLength(10);
    expect(received('GET', '/attacks/active/paged')).toHaveLength(1);

    const all = await take(attacks.iterateActive({ pageSize: 1000 }), 10_000);
    expect(new Set(all.map((a) => a.guid))).toEqual(new Set(guids));
    expect(received('GET', '/attacks/active/paged')).toHaveLength(1 + 3);

    const one = await attacks.activePage({ pageSize: 1000 });
    const two = await attacks.activePage({ pageSize: 1000, pageToken: one.nextPageToken });
    const three = await attacks.activePage({ pageSize: 1000, pageToken: two.nextPageToken });
    expect([one.items.length, two.items.length, three.items.length]).toEqual([1000, 1000, 500]);
    expect(one.nextPageToken).toBeDefined();
    expect(two.nextPageToken).toBeDefined();
    expect(three.nextPageToken).toBeUndefined();
  });

  it('pages completed attacks', async () => {
    sim.addAttacks(teamId('platform'), 5, { lengthSeconds: 10 });
    sim.clock.advance(120_000);
    const attacks = platform.as(await as('owner')).attacks;

    const page = await attacks.completedPage({ pageSize: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.nextPageToken).toBeDefined();
    const rest = await attacks.completedPage({ pageSize: 2, pageToken: page.nextPageToken });
    expect(rest.items).toHaveLength(2);
    expect(await take(attacks.iterateActive(), 100)).toEqual([]);
  });

  it('lists attacks in a time range', async () => {
    const attacks = platform.as(await as('owner')).attacks;
    const early = await attacks.create(cpu());
    sim.clock.advance(3_600_000);
    const middle = new Date(sim.clock.now() - 60_000);
    const late = await attacks.create(cpu());

    const range = attacks.iterateRange({ startTime: middle, endTime: new Date(sim.clock.now() + 1000) });
    expect((await take(range, 10)).map((a) => a.guid)).toEqual([late]);
    const before = attacks.iterateRange({ endTime: middle.toISOString() });
    expect((await take(before, 10)).map((a) => a.guid)).toEqual([early]);
    expect((await take(attacks.iterateRange({ pageSize: 1 }), 10)).map((a) => a.guid).sort()).toEqual(
      [late, early].sort(),
    );
    expect(received('GET', '/attacks/range')).toHaveLength(2 + 2);
  });

  it('creates attacks on a service', async () => {
    const ctx = await as('owner');
    const service = sim.seed.service;
    expect(service.teamId).toBe(teamId('platform'));

    const created = await platform.as(ctx).attacks.createForService({
      attackConfiguration: {
        command: { infraCommandType: 'CPU', infraCommandArgs: { cliArgs: ['cpu', '-l', '60'] } },
        targets: [{ serviceId: service.id, targetingStrategy: { type: 'All' } }],
        sampling: { type: 'Percent', percent: 100 },
      },
      includeNewTargets: false,
    });

    expect(created).toEqual([{ serviceId: service.id, type: 'Host', attackId: expect.any(String) }]);
    expect((await platform.as(ctx).attacks.get(created[0]!.attackId)).infra_command?.type).toBe('cpu');
  });

  it('annotates an attack', async () => {
    const attacks = platform.as(await as('owner')).attacks;
    const guid = await attacks.create(cpu());

    const annotated = await attacks.annotate(guid, { note: 'latency spike at 18:05' });
    expect(annotated.annotations).toEqual({ note: 'latency spike at 18:05' });
    expect((await attacks.get(guid)).annotations).toEqual({ note: 'latency spike at 18:05' });
  });

  it('advances an attack through its stages to Successful', async () => {
    const attacks = platform.as(await as('owner')).attacks;
    const guid = await attacks.create(cpu(60));

    const fresh = await attacks.get(guid);
    expect(fresh.stage_lifecycle).toBe('Active');
    expect(isFinished(fresh)).toBe(false);
    sim.clock.advance(120_000);
    const done = await attacks.get(guid);
    expect(done).toMatchObject({ stage: 'Successful', stage_lifecycle: 'Complete' });
    expect(done.end_time).toEqual(expect.any(String));
    expect(isFinished(done)).toBe(true);
  });

  it('halts by POST and by DELETE, ending UserHalted; halting twice succeeds', async () => {
    const attacks = platform.as(await as('owner')).attacks;
    const byPost = await attacks.create(cpu(600));
    const byDelete = await attacks.create(cpu(600));

    const halted = await attacks.halt(byPost, { reason: 'enough', reference: 'INC-1' });
    expect(halted?.map((a) => a.guid)).toEqual([byPost]);
    expect(halted?.[0]?.stage_lifecycle).toMatch(/^(Halting|Complete)$/);
    await attacks.halt(byDelete, undefined, { method: 'DELETE' });
    expect(received('DELETE', `/attacks/${byDelete}`).map((r) => r.status)).toEqual([202]);

    sim.clock.advance(60_000);
    for (const guid of [byPost, byDelete]) {
      expect(await attacks.get(guid)).toMatchObject({ stage: 'UserHalted', stage_lifecycle: 'Complete' });
    }
    // A halt of an attack that has ended lists nothing: it stopped nothing.
    expect(await attacks.halt(byPost)).toEqual([]);
    expect((await attacks.get(byPost)).stage).toBe('UserHalted');
  });

  it('lists one execution per target', async () => {
    const attacks = platform.as(await as('owner')).attacks;
    const guid = await attacks.create(cpu());
    const attack = await attacks.get(guid);

    const executions = await attacks.executions(guid);
    expect(executions).toHaveLength(attack.targets.length);
    expect(executions.every((e) => e.task_id === guid)).toBe(true);
    expect(executions.map((e) => e.client_id).sort()).toEqual([...attack.targets].sort());
  });

  it('halts all attacks of the company, by POST and by DELETE, without teamId', async () => {
    const owner = await as('owner');
    const onPlatform = await platform.as(owner).attacks.create(cpu(600));
    const onPayments = await platform.as({ ...owner, teamId: teamId('payments') }).attacks.create(cpu(600));

    const halted = await platform.as(owner).attacks.haltAll({ reason: 'game day over' });
    expect(halted.map((a) => a.guid).sort()).toEqual([onPlatform, onPayments].sort());
    expect(received('POST', '/attacks/halt')[0]?.teamId).toBeUndefined();
    await platform.as(owner).attacks.haltAll(undefined, { method: 'DELETE' });
    expect(received('DELETE', '/attacks').map((r) => [r.status, r.teamId])).toEqual([[202, undefined]]);

    sim.clock.advance(60_000);
    expect((await platform.as(owner).attacks.get(onPlatform)).stage).toBe('UserHalted');
  });

  it('halts everything', async () => {
    const owner = await as('owner');
    const guid = await platform.as(owner).attacks.create(cpu(600));

    await platform.as(owner).attacks.haltEverything({ reason: 'stop the world' });

    expect(received('POST', '/halts').map((r) => [r.status, r.teamId])).toEqual([[202, undefined]]);
    sim.clock.advance(60_000);
    expect((await platform.as(owner).attacks.get(guid)).stage).toBe('UserHalted');
  });

  it('answers NotFoundError for an unknown attack', async () => {
    await expect(
      platform.as(await as('owner')).attacks.get('00000000-0000-0000-0000-000000000000'),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('kubernetes attacks', () => {
  it('creates, lists, gets and halts one, and halts all', async () => {
    const ctx = await as('owner');
    const object = sim.seed.kubernetesObjects.find((o) => o.teamId === teamId('platform'));
    expect(object).toBeDefined();
    const kubernetes = platform.as(ctx).kubernetes;

    const guid = await kubernetes.create({
      impactDefinition: { cliArgs: ['cpu', '-l', '600'] },
      targetDefinition: {
        strategy: {
          k8sObjects: [
            { clusterId: object!.clusterId, namespace: object!.namespace, kind: object!.kind, name: object!.name },
          ],
        },
      },
    });
    expect(received('POST', '/kubernetes/attacks/new').map((r) => r.status)).toEqual([201]);

    expect((await kubernetes.list()).map((a) => a.guid)).toEqual([guid]);
    expect(await kubernetes.list({ source: 'Scenario' })).toEqual([]);
    const attack = await kubernetes.get(guid);
    expect(attack.impact_definition?.cli_args).toEqual(['cpu', '-l', '600']);
    expect(attack.target_definition?.strategy?.k8s_objects).toEqual([
      { cluster_id: object!.clusterId, namespace: object!.namespace, kind: object!.kind, name: object!.name },
    ]);

    await kubernetes.halt(guid, { reason: 'done' });
    await kubernetes.halt(guid);
    sim.clock.advance(60_000);
    expect(await kubernetes.get(guid)).toMatchObject({ stage: 'UserHalted', stage_lifecycle: 'Complete' });

    const second = await kubernetes.create({
      impactDefinition: { cliArgs: ['memory', '-l', '600', '-p', '50'] },
      targetDefinition: {
        strategy: {
          k8sObjects: [
            { clusterId: object!.clusterId, namespace: object!.namespace, kind: object!.kind, name: object!.name },
          ],
        },
      },
    });
    await kubernetes.haltAll();
    expect(received('POST', '/kubernetes/attacks/halt').map((r) => [r.status, r.teamId])).toEqual([[202, undefined]]);
    sim.clock.advance(60_000);
    expect((await kubernetes.get(second)).stage).toBe('UserHalted');
  });
});

describe('metadata', () => {
  it('lists the attack types with their arguments', async () => {
    const catalogue = await platform.as(await as('observer')).metadata.catalogue();

    expect(catalogue.source).toBe('platform');
    const cpuType = catalogue.types.find((t) => t.name === 'cpu');
    expect(cpuType?.args.some((a) => a.short === 'l' && a.long === 'length')).toBe(true);
  });

  it('has a built-in catalogue that agrees with the platform on every type and flag it lists', async () => {
    // The simulator keeps its own catalogue, so this compares two accounts of the platform.
    const { types: live, source } = await platform.as(await as('observer')).metadata.catalogue();
    expect(source).toBe('platform');
    const flags = (type: {
      args: ReadonlyArray<{
        name: string;
        short?: string | null;
        long?: string | null;
        type: string;
        multiple?: boolean | null;
        options?: string[] | null;
      }>;
    }) =>
      type.args.map(({ name, short, long, type: kind, multiple, options }) => ({
        name,
        short,
        long,
        type: kind,
        multiple,
        options,
      }));
    for (const builtIn of builtInCatalogue) {
      const reported = live.find((type) => type.name === builtIn.name);
      expect(reported, builtIn.name).toBeDefined();
      expect(flags(builtIn), builtIn.name).toEqual(flags(reported!));
    }
  });

  it('falls back to the built-in catalogue when the platform fails, but not when the session is gone', async () => {
    const ctx = await as('observer');
    sim.faults.inject({ kind: 'status', status: 500, path: '/metadata', times: Infinity });
    expect((await platform.as(ctx).metadata.catalogue()).source).toBe('built-in');
    sim.faults.clear();
    await expect(platform.as({ ...ctx, header: 'Bearer expired' }).metadata.catalogue()).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
  });
});

describe('tracker', () => {
  it('reads issue meta and labels, files an issue with the required fields, and finds and counts it', async () => {
    const { projectId, issueTypeId, teamId: trackerTeam } = sim.seed.tracker;
    expect(trackerTeam).toBe(teamId('platform'));
    const { tracker, attacks } = platform.as(await as('owner'));
    const guid = await attacks.create(cpu());

    const meta = await tracker.issueMeta(projectId, issueTypeId);
    expect(meta.project?.id).toBe(projectId);
    expect(meta.issuetype?.id).toBe(issueTypeId);
    const required = meta.fields.filter((f) => f.required);
    expect(required.map((f) => f.key)).toEqual(expect.arrayContaining(['summary', 'project', 'issuetype']));
    const labels = await tracker.labels();
    expect(labels.length).toBeGreaterThan(0);
    expect(labels.every((label) => typeof label === 'string')).toBe(true);

    // What the ticket modal does: every further required option gets one of its allowed values.
    const extra = Object.fromEntries(
      required
        .filter((f) => !['summary', 'project', 'issuetype'].includes(f.key))
        .map((f) => [f.key, { id: f.allowedValues[0]?.id }]),
    );
    const created = await tracker.createIssue({
      entity: { id: guid, type: 'ATTACK' },
      fields: {
        summary: 'CPU attack on web',
        description: 'what we saw',
        project: { id: projectId },
        issuetype: { id: issueTypeId },
        labels: [labels[0]!],
        ...extra,
      },
    });
    expect(created.key).toMatch(/^[A-Z]+-\d+$/);
    expect(created.url).toContain(created.key);

    expect((await tracker.issues([guid])).map((i) => i.key)).toEqual([created.key]);
    expect(await tracker.count([guid])).toBe(1);
    expect(await tracker.count(['no-such-entity'])).toBe(0);
    const byEntity = await tracker.issuesForEntity(guid, 'ATTACK');
    expect(byEntity).toEqual([
      expect.objectContaining({ key: created.key, summary: 'CPU attack on web', entity: { id: guid, type: 'ATTACK' } }),
    ]);
    expect(await tracker.issuesForEntity(guid, 'GAME_DAY')).toEqual([]);
  });

  it('rejects an issue missing a required field as a bad request', async () => {
    const { projectId, issueTypeId } = sim.seed.tracker;
    const { tracker, attacks } = platform.as(await as('owner'));
    const guid = await attacks.create(cpu());
    const required = (await tracker.issueMeta(projectId, issueTypeId)).fields
      .filter((f) => f.required)
      .map((f) => f.key);
    expect(required.length).toBeGreaterThan(3);

    const create = tracker.createIssue({
      entity: { id: guid, type: 'ATTACK' },
      fields: { summary: 's', project: { id: projectId }, issuetype: { id: issueTypeId } },
    });
    await expect(create).rejects.toMatchObject({ name: 'BadRequestError', status: 400 });
    expect(received('POST', '/tracker/issues')).toHaveLength(1);
  });

  it('answers NoIntegrationError on a team without tracker', async () => {
    const tracker = platform.as(await as('owner', 'payments')).tracker;
    const create = tracker.createIssue({
      entity: { id: 'x', type: 'ATTACK' },
      fields: {
        summary: 's',
        project: { id: sim.seed.tracker.projectId },
        issuetype: { id: sim.seed.tracker.issueTypeId },
      },
    });
    await expect(create).rejects.toBeInstanceOf(NoIntegrationError);
    await expect(tracker.issues(['x'])).rejects.toBeInstanceOf(NoIntegrationError);
    await expect(tracker.issuesForEntity('x', 'ATTACK')).rejects.toBeInstanceOf(NoIntegrationError);
  });
});

describe('monitoring', () => {
  const integrationA = () => ({
    integrationName: sim.seed.monitoring.a.integrationName,
    domain: sim.seed.monitoring.a.domain,
  });
  const uri = () => sim.seed.monitoring.b.uri;
  const monitorNamed = (name: string) => sim.seed.monitoring.a.monitors.find((monitor) => monitor.name === name)!;

  it('reads a monitor and follows its state', async () => {
    const { monitoring } = platform.as(await as('observer'));
    const latency = monitorNamed('checkout p99 latency');
    const monitor = await monitoring.getMonitorA(latency.id, integrationA());
    expect(monitor).toMatchObject({ id: String(latency.id), name: 'checkout p99 latency', overall_state: 'OK' });
    expect(monitorHealth(monitor)).toBe('healthy');

    sim.setMonitorState(latency.id, 'Alert');
    expect(monitorHealth(await monitoring.getMonitorA(String(latency.id), integrationA()))).toBe('unhealthy');
    expect(monitorHealth(await monitoring.getMonitorA(monitorNamed('cart queue depth').id, integrationA()))).toBe(
      'unknown',
    );
    expect(received('GET', `/monitoringA/monitors/${latency.id}`).at(-1)?.query).toEqual({
      monitoringAIntegrationName: integrationA().integrationName,
      domain: integrationA().domain,
      teamId: teamId('platform'),
    });
  });

  it('searches monitors a page at a time', async () => {
    const { monitoring } = platform.as(await as('owner'));
    const found = await monitoring.searchMonitorsA('checkout', integrationA());
    expect(found.monitors.map((monitor) => monitor.name)).toEqual([
      'checkout p99 latency',
      'checkout error budget burn',
    ]);
    expect(found.metadata).toMatchObject({ page: 0, total_count: 2 });
    const second = await monitoring.searchMonitorsA('', { ...integrationA(), page: 1, perPage: 2 });
    expect(second.monitors).toHaveLength(2);
    expect(second.metadata).toEqual({ page: 1, per_page: 2, total_count: 4 });
  });

  it('answers NotFoundError for an unknown monitor and BadRequestError without an integration name', async () => {
    const { monitoring } = platform.as(await as('owner'));
    const missing = monitoring.getMonitorA(1, integrationA());
    await expect(missing).rejects.toBeInstanceOf(NotFoundError);
    await expect(missing).rejects.not.toBeInstanceOf(NoIntegrationError);
    await expect(monitoring.getMonitorA(1, { integrationName: ' ' })).rejects.toMatchObject({
      name: 'BadRequestError',
      status: 400,
    });
  });

  it('reads alerts by name and follows their state', async () => {
    const { monitoring } = platform.as(await as('owner'));
    const [alert, ...others] = await monitoring.alertsB({ uri: uri(), name: 'CheckoutErrorRate' });
    expect(others).toEqual([]);
    expect(alert).toMatchObject({ name: 'CheckoutErrorRate', state: 'inactive', active_at: undefined });
    expect(alertHealth(alert!)).toBe('healthy');

    sim.setAlertState('CheckoutErrorRate', 'firing');
    const [firing] = await monitoring.alertsB({ uri: uri(), name: 'CheckoutErrorRate' });
    expect(alertHealth(firing!)).toBe('unhealthy');
    expect(firing?.active_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    expect((await monitoring.alertsB({ uri: uri() })).length).toBe(sim.seed.monitoring.b.alerts.length);
  });

  it('answers NoIntegrationError naming the product for a company without the integrations', async () => {
    const { email, password } = sim.seed.users.globex;
    const session = await platform.auth.login({ email, password });
    const { monitoring } = platform.as({ header: session.header, teamId: sim.seed.teams.globex.id });
    await expect(monitoring.getMonitorA(monitorNamed('checkout p99 latency').id, integrationA())).rejects.toMatchObject(
      { name: 'NoIntegrationError', integration: 'monitoringA' },
    );
    await expect(monitoring.searchMonitorsA('x', integrationA())).rejects.toBeInstanceOf(NoIntegrationError);
    await expect(monitoring.alertsB({ uri: uri() })).rejects.toMatchObject({
      name: 'NoIntegrationError',
      integration: 'monitoringB',
    });
  });

  it('retries the provider rate limit with its Retry-After, then gives up with RateLimitedError', async () => {
    const { monitoring } = platform.as(await as('owner'));
    const latency = monitorNamed('checkout p99 latency');
    const path = `/monitoringA/monitors/${latency.id}`;
    sim.rateLimitMonitoringA(1, 2);
    expect((await monitoring.getMonitorA(latency.id, integrationA())).overall_state).toBe('OK');
    expect(sleeps).toEqual([2000]);
    expect(received('GET', path).map((r) => r.status)).toEqual([429, 200]);

    sim.rateLimitMonitoringA(10, 3);
    const limited = monitoring.getMonitorA(latency.id, integrationA());
    await expect(limited).rejects.toBeInstanceOf(RateLimitedError);
    await expect(limited).rejects.toMatchObject({ retryAfterMs: 3000 });
    expect(received('GET', path).map((r) => r.status)).toEqual([429, 200, 429, 429, 429]);
  });
});

describe('errors', () => {
  it('maps a missing or bad Authorization header to UnauthorizedError', async () => {
    const team = teamId('platform');
    await expect(platform.as({ header: '', teamId: team }).attacks.listActive()).rejects.toMatchObject({
      name: 'UnauthorizedError',
      status: 401,
    });
    await expect(
      platform.as({ header: 'Bearer 00000000-bogus', teamId: team }).attacks.listActive(),
    ).rejects.toMatchObject({
      name: 'UnauthorizedError',
      reason: 'session',
    });
    await expect(platform.as({ header: 'Basic abc', teamId: team }).attacks.listActive()).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
  });

  it('names the missing privilege when an observer halts', async () => {
    const owner = await as('owner');
    const guid = await platform.as(owner).attacks.create(cpu(600));
    const observer = platform.as(await as('observer')).attacks;

    const failure = await observer.halt(guid).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ForbiddenError);
    expect(failure).toMatchObject({ privilege: 'HALT_WRITE', httpsRequired: false, status: 403 });
    await expect(observer.haltAll()).rejects.toMatchObject({ name: 'ForbiddenError', privilege: 'HALT_ALL' });
    expect((await platform.as(owner).attacks.get(guid)).stage_lifecycle).toBe('Active');
  });

  it('retries a 429 with Retry-After and succeeds once', async () => {
    const ctx = await as('owner');
    sim.faults.inject({ kind: 'status', status: 429, retryAfter: 1, method: 'GET', path: '/attacks/active' });

    expect(await platform.as(ctx).attacks.listActive()).toEqual([]);
    expect(sleeps).toEqual([1000]);
    expect(received('GET', '/attacks/active').map((r) => r.status)).toEqual([429, 200]);
  });

  it('times out a read that hangs', async () => {
    const ctx = await as('owner');
    const impatient = clientFor(sim.url, { timeoutMs: 300 });
    sim.faults.inject({ kind: 'hang', method: 'GET', path: '/attacks/active', times: Infinity });

    const failure = await impatient
      .as(ctx)
      .attacks.listActive()
      .catch((error: unknown) => error);
    sim.faults.clear();

    expect(failure).toBeInstanceOf(TimeoutError);
    expect((failure as TimeoutError).outcomeUnknown).toBe(false);
    expect(sleeps).toHaveLength(2);
  });

  it('reports a connection the platform resets as UnreachableError', async () => {
    const ctx = await as('owner');
    sim.faults.inject({ kind: 'reset', method: 'GET', path: '/attacks/active', times: Infinity });

    await expect(platform.as(ctx).attacks.listActive()).rejects.toBeInstanceOf(UnreachableError);
    expect(sleeps).toHaveLength(2);
  });
});

const redirectUri = 'https://faultline.example.test/login/sso/callback';

describe('single sign-on', () => {
  it('starts at the identity provider, and exchanges its code for a company session once', async () => {
    const url = await platform.auth.startSso({ companyName: sim.seed.company.name, redirectUri });
    const state = new URL(url).searchParams.get('state')!;
    // The person signs in at the provider, which sends the browser back with a code.
    const signedIn = await request(new URL('/_idp/authorize', url), {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ state, email: sim.seed.sso.email }).toString(),
    });
    const back = new URL(String(signedIn.headers.location));
    await signedIn.body.dump();
    const code = back.searchParams.get('code')!;

    const session = await platform.auth.finishSso({ code, state });
    expect(session).toMatchObject({ identifier: sim.seed.sso.email, company_name: sim.seed.company.name });
    await expect(platform.auth.finishSso({ code, state })).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(
      platform.auth.startSso({ companyName: sim.seed.otherCompany.name, redirectUri }),
    ).rejects.toBeInstanceOf(BadRequestError);

    const owner = await platform.auth.login(sim.seed.users.owner);
    const failures = await platform.auth.ssoFailures({ header: owner.header });
    expect(failures[0]).toMatchObject({ email: sim.seed.sso.email, reason: 'The code or state was used already' });
    expect(await platform.auth.ssoFailures({ header: owner.header }, 'former@acme.test')).toHaveLength(1);
  });
});
