import { request } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { simulatorForFile, type Answer } from './support.ts';

const { sim, api } = await simulatorForFile();
const platform = sim.seed.teams.platform.id;
const { a, b } = sim.seed.monitoring;
const latency = 1234567;
let owner: string;
beforeEach(async () => {
  owner = await api.companyAuth(sim.seed.users.owner);
});

/** A request to the control surface, outside /v1; `body` is sent as JSON unless `contentType` says otherwise. */
async function control(
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; contentType?: string | null; plainHttp?: boolean } = {},
): Promise<Answer> {
  const base = options.plainHttp ? sim.httpUrl.replace(/\/v1$/, '/_control') : sim.controlUrl;
  const raw = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const headers: Record<string, string> = {};
  if (raw !== undefined && options.contentType !== null)
    headers['content-type'] = options.contentType ?? 'application/json';
  const response = await request(`${base}${path}`, {
    method: method as 'GET',
    headers,
    ...(raw !== undefined ? { body: raw } : {}),
    dispatcher: api.agent,
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: () => JSON.parse(text) };
}

const readMonitor = (id: number) =>
  api.call('GET', `/monitoringA/monitors/${id}`, {
    auth: owner,
    teamId: platform,
    query: { monitoringAIntegrationName: a.integrationName, domain: a.domain },
  });
const readAlerts = () =>
  api.call('GET', '/monitoringB/alerts', { auth: owner, teamId: platform, query: { monitoringBUri: b.uri } });

describe('the control surface changes what the platform API then reads', () => {
  it('turns a monitor to Alert, and the monitoringA endpoint the bot reads says Alert', async () => {
    expect(sim.controlUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/_control$/);
    const answer = await control('POST', `/monitors/${latency}/state`, { body: { state: 'Alert' } });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ id: latency, name: 'checkout p99 latency', state: 'Alert' });
    expect((await readMonitor(latency)).json()).toMatchObject({ id: latency, overall_state: 'Alert' });

    await control('POST', `/monitors/${latency}/state`, { body: { state: 'OK' } });
    expect((await readMonitor(latency)).json()).toMatchObject({ overall_state: 'OK' });
  });

  it('lists the monitors and alerts with their states', async () => {
    await control('POST', '/monitors/1234570/state', { body: { state: 'Alert' } });
    const monitors = (await control('GET', '/monitors')).json<Array<{ id: number; name: string; state: string }>>();
    expect(monitors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: latency,
          name: 'checkout p99 latency',
          state: 'OK',
          company: sim.seed.company.name,
        }),
        expect.objectContaining({ id: 1234569, state: 'No Data' }),
        expect.objectContaining({ id: 1234570, state: 'Alert' }),
      ]),
    );
    const alerts = (await control('GET', '/alerts')).json<Array<{ name: string; state: string }>>();
    expect(alerts).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'CheckoutErrorRate', state: 'inactive' })]),
    );
  });

  it('fires an alert, and the monitoringB endpoint says firing with the time it became active', async () => {
    const answer = await control('POST', '/alerts/CheckoutErrorRate/state', { body: { state: 'firing' } });
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ name: 'CheckoutErrorRate', state: 'firing' });
    const alerts = (await readAlerts()).json<Array<{ name: string }>>();
    expect(alerts.find((one) => one.name === 'CheckoutErrorRate')).toMatchObject({
      state: 'firing',
      active_at: expect.any(String),
    });
  });

  it('starts an attack as the web UI would, which the API then lists as active, made outside the bot', async () => {
    const answer = await control('POST', '/attacks', {
      body: {
        team: 'Platform',
        type: 'cpu',
        args: ['-l', '120', '-c', '1'],
        target: { type: 'Random', tags: { role: 'web' } },
      },
    });
    expect(answer.status).toBe(201);
    const { guid, teamId } = answer.json<{ guid: string; teamId: string }>();
    expect(teamId).toBe(platform);
    const attack = await api.getAttack(owner, platform, guid);
    expect(attack).toMatchObject({
      guid,
      create_source: 'WebApp',
      infra_command: { type: 'cpu', args: ['-l', '120', '-c', '1'] },
    });

    // A team by id works too, and the defaults make a one-minute cpu attack.
    const byId = await control('POST', '/attacks', { body: { team: platform } });
    expect(byId.status).toBe(201);
    expect(await api.getAttack(owner, platform, byId.json<{ guid: string }>().guid)).toMatchObject({
      infra_command: { type: 'cpu', args: ['-l', '60'] },
    });
  });

  it('lists the targets with whether each ignores halts, as set on the control surface', async () => {
    const before = (await control('GET', '/targets')).json() as Array<Record<string, unknown>>;
    expect(before).toContainEqual({
      id: 'platform-web-2',
      kind: 'host',
      teamId: platform,
      team: 'Platform',
      active: true,
      ignoresHalts: false,
      stopDelaySeconds: 0,
    });
    expect(before).toContainEqual(expect.objectContaining({ id: 'checkout-1', kind: 'container', team: 'Platform' }));
    expect(before.every((target) => target['ignoresHalts'] === false)).toBe(true);

    expect((await control('POST', '/targets/platform-web-2/halts', { body: { ignore: true } })).status).toBe(200);
    const ignoring = (await control('GET', '/targets')).json() as Array<Record<string, unknown>>;
    expect(ignoring.filter((target) => target['ignoresHalts']).map((target) => target['id'])).toEqual([
      'platform-web-2',
    ]);
    await control('POST', '/targets/platform-web-2/halts', { body: { ignore: false } });
    expect(
      ((await control('GET', '/targets')).json() as Array<Record<string, unknown>>).some(
        (target) => target['ignoresHalts'],
      ),
    ).toBe(false);
  });

  it('is served on the plain-HTTP port too', async () => {
    const answer = await control('POST', '/alerts/CartLatencyHigh/state', {
      body: { state: 'pending' },
      plainHttp: true,
    });
    expect(answer.status).toBe(200);
    expect(
      sim.state.companies
        .get(sim.seed.company.id)!
        .monitoringB!.alerts.find((alert) => alert.name === 'CartLatencyHigh')!.state,
    ).toBe('pending');
  });

  it('lists its endpoints at its root', async () => {
    const answer = await control('GET', '');
    expect(answer.status).toBe(200);
    expect(answer.json<{ endpoints: string[] }>().endpoints.join('\n')).toMatch(
      /POST \/_control\/monitors\/\{id\}\/state/,
    );
  });
});

describe('the control surface answers bad input with a clear 400', () => {
  const cases: Array<[string, string, Parameters<typeof control>[2], RegExp]> = [
    [
      'a state that does not exist',
      `/monitors/${latency}/state`,
      { body: { state: 'Alarm' } },
      /^Bad request: state must be one of OK, Warn, Alert, No Data, Skipped, Ignored, Unknown .*not "Alarm"/,
    ],
    ['no state', `/monitors/${latency}/state`, { body: {} }, /^Bad request: state must be one of .*missing/],
    [
      'an alert state that does not exist',
      '/alerts/CheckoutErrorRate/state',
      { body: { state: 'Alert' } },
      /^Bad request: state must be one of firing, pending, inactive/,
    ],
    ['no body', `/monitors/${latency}/state`, {}, /^Bad request: send a JSON body such as \{"state": "OK"\}/],
    [
      'a body that is not JSON',
      `/monitors/${latency}/state`,
      { raw: 'state=Alert' },
      /^Bad request: the body is not valid JSON/,
    ],
    [
      'a body that is not an object',
      `/monitors/${latency}/state`,
      { body: ['Alert'] },
      /^Bad request: body: .*send a body such as/,
    ],
    [
      'a monitor id that is not a number',
      '/monitors/latency/state',
      { body: { state: 'Alert' } },
      /^Bad request: "latency" is not a monitor id/,
    ],
    ['an unknown team', '/attacks', { body: { team: 'Nowhere' } }, /^Bad request: team: no team is named "Nowhere"/],
    ['no team', '/attacks', { body: { type: 'cpu' } }, /^Bad request: team: .*send a body such as/],
    [
      'an unknown attack type',
      '/attacks',
      { body: { team: 'Platform', type: 'teleport' } },
      /^Bad request: unknown attack type "teleport"/,
    ],
    [
      'a bad argument',
      '/attacks',
      { body: { team: 'Platform', type: 'cpu', args: ['-l', '60', '--frobnicate'] } },
      /^Bad request: unknown argument "--frobnicate"/,
    ],
    ['args that are not a list', '/attacks', { body: { team: 'Platform', args: '-l 60' } }, /^Bad request: args: /],
    [
      'a target of the wrong shape',
      '/attacks',
      { body: { team: 'Platform', target: { type: 'Anywhere' } } },
      /^Bad request: target: /,
    ],
    [
      'an unknown creator',
      '/attacks',
      { body: { team: 'Platform', createUser: 'nobody@acme.test' } },
      /^Bad request: createUser: no user/,
    ],
  ];
  it.each(cases)('%s', async (_name, path, options, words) => {
    const before = {
      monitor: sim.state.companies.get(sim.seed.company.id)!.monitoringA!.monitors.map((monitor) => monitor.state),
      attacks: sim.state.attacks.size,
    };
    const answer = await control('POST', path, options);
    expect(answer.status).toBe(400);
    expect(answer.text).toMatch(words);
    expect(answer.text).not.toMatch(/at .*\.ts:\d+/);
    // Nothing changed.
    expect(sim.state.companies.get(sim.seed.company.id)!.monitoringA!.monitors.map((monitor) => monitor.state)).toEqual(
      before.monitor,
    );
    expect(sim.state.attacks.size).toBe(before.attacks);
  });

  it('says what to send when the body is not JSON by its content type (415)', async () => {
    const answer = await control('POST', `/monitors/${latency}/state`, {
      raw: '{"state":"Alert"}',
      contentType: 'text/plain',
    });
    expect(answer.status).toBe(415);
    expect(answer.text).toMatch(/Content-Type: application\/json/);
  });

  it('answers 404 for a monitor or an alert it does not have, saying where the list is', async () => {
    const monitor = await control('POST', '/monitors/999/state', { body: { state: 'Alert' } });
    expect({ status: monitor.status, text: monitor.text }).toEqual({
      status: 404,
      text: 'No monitor 999: GET /_control/monitors lists them',
    });
    const alert = await control('POST', '/alerts/NoSuchAlert/state', { body: { state: 'firing' } });
    expect({ status: alert.status, text: alert.text }).toEqual({
      status: 404,
      text: 'No alert NoSuchAlert: GET /_control/alerts lists them',
    });
  });

  it('answers an unknown endpoint with 404 and a wrong method with 405, listing the endpoints', async () => {
    const unknown = await control('POST', '/weather', { body: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.json<{ endpoints: string[] }>().endpoints.length).toBeGreaterThan(3);
    const wrong = await control('GET', `/monitors/${latency}/state`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('POST');
  });
});

describe('the control surface stays apart from the platform API', () => {
  it('cannot be reached under /v1, with or without a session', async () => {
    for (const auth of [undefined, owner]) {
      const answer = await api.call('POST', `/_control/monitors/${latency}/state`, {
        ...(auth ? { auth } : {}),
        teamId: platform,
        json: { state: 'Alert' },
      });
      expect(answer.status).toBe(404);
    }
    expect((await readMonitor(latency)).json()).toMatchObject({ overall_state: 'OK' });
  });

  it('is not recorded among the platform requests, and faults armed for the API do not touch it', async () => {
    sim.faults.inject({ kind: 'status', status: 503, times: 5 });
    const before = sim.requests.length;
    const answer = await control('POST', `/monitors/${latency}/state`, { body: { state: 'Alert' } });
    expect(answer.status).toBe(200);
    expect(sim.requests.length).toBe(before);
    // The fault is still armed for the platform API.
    expect((await readMonitor(latency)).status).toBe(503);
  });
});
