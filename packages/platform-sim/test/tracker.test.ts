import { beforeEach, describe, expect, it } from 'vitest';
import { simulatorForFile } from './support.ts';

const { sim, api } = await simulatorForFile();
const platform = sim.seed.teams.platform.id;
let owner: string;
beforeEach(async () => {
  owner = await api.companyAuth(sim.seed.users.owner);
});

function ticket(attackGuid: string, extra: Record<string, unknown> = {}) {
  return {
    entity: { id: attackGuid, type: 'ATTACK' },
    fields: {
      summary: 'CPU attack on checkout',
      description: 'p99 latency doubled',
      project: { id: sim.seed.tracker.projectId },
      issuetype: { id: sim.seed.tracker.issueTypeId },
      priority: { id: '3' },
      customfield_10050: { id: '20001' },
      labels: ['chaos'],
      ...extra,
    },
  };
}

describe('tracker', () => {
  it('describes the fields of an issue type, with required non-standard option fields', async () => {
    const answer = await api.call('GET', '/tracker/issue-meta', {
      auth: owner,
      teamId: platform,
      query: { projectId: '10001', issueTypeId: '10004' },
    });
    expect(answer.status).toBe(200);
    const meta = answer.json();
    expect(meta.project).toEqual({ id: '10001', key: 'OPS', name: 'Operations' });
    expect(meta.issuetype).toEqual({ id: '10004', name: 'Incident' });
    const required = meta.fields
      .filter((field: { required: boolean }) => field.required)
      .map((field: { key: string }) => field.key);
    expect(required).toEqual(['summary', 'project', 'issuetype', 'priority', 'customfield_10050']);
    const priority = meta.fields.find((field: { key: string }) => field.key === 'priority');
    expect(priority).toMatchObject({
      type: 'option',
      allowedValues: expect.arrayContaining([{ id: '3', name: 'Medium' }]),
    });

    expect(
      (
        await api.call('GET', '/tracker/issue-meta', {
          auth: owner,
          teamId: platform,
          query: { projectId: '10001', issueTypeId: '99' },
        })
      ).text,
    ).toBe('Not found');
    expect(
      (await api.call('GET', '/tracker/issue-meta', { auth: owner, teamId: platform, query: { projectId: '10001' } }))
        .status,
    ).toBe(400);
  });

  it('files an issue for an attack and finds it by entity id, by entity and by count', async () => {
    const guid = await api.createAttack(owner, platform);
    const created = await api.call('POST', '/tracker/issues', { auth: owner, teamId: platform, json: ticket(guid) });
    expect(created.status).toBe(200);
    expect(created.json()).toEqual({ key: 'OPS-1', url: 'https://tracker.example/browse/OPS-1' });

    const listed = await api.call('GET', '/tracker/issues', {
      auth: owner,
      teamId: platform,
      query: { platformEntityIds: [guid, 'other'] },
    });
    expect(listed.json()).toEqual([
      expect.objectContaining({
        key: 'OPS-1',
        summary: 'CPU attack on checkout',
        status: 'To Do',
        entity: { id: guid, type: 'ATTACK' },
      }),
    ]);

    const count = await api.call('GET', '/tracker/issues/count', {
      auth: owner,
      teamId: platform,
      query: { platformEntityIds: `${guid},other` },
    });
    expect(count.json()).toBe(1);

    const byEntity = await api.call('GET', '/tracker/issues/services', {
      auth: owner,
      teamId: platform,
      query: { platformEntityId: guid, type: 'ATTACK' },
    });
    expect(byEntity.json().map((issue: { key: string }) => issue.key)).toEqual(['OPS-1']);
    const otherType = await api.call('GET', '/tracker/issues/services', {
      auth: owner,
      teamId: platform,
      query: { platformEntityId: guid, type: 'SERVICE' },
    });
    expect(otherType.json()).toEqual([]);
  });

  it.each([
    ['no summary', { summary: '' }, /summary/],
    ['a missing required field', { priority: undefined }, /"priority" is required/],
    ['a value outside allowedValues', { priority: { id: '42' } }, /allowed values/],
    ['an unknown project', { project: { id: '1' } }, /unknown project/],
  ])('answers 400 Bad request to %s', async (_case, fields, detail) => {
    const guid = await api.createAttack(owner, platform);
    const answer = await api.call('POST', '/tracker/issues', {
      auth: owner,
      teamId: platform,
      json: ticket(guid, fields),
    });
    expect(answer.status).toBe(400);
    expect(answer.text).toMatch(/^Bad request/);
    expect(answer.text).toMatch(detail);
    expect(sim.state.trackerIssues).toEqual([]);
  });

  it('refuses a ticket about an attack the team does not have', async () => {
    const answer = await api.call('POST', '/tracker/issues', {
      auth: owner,
      teamId: platform,
      json: ticket('6f1c1b7e-0000-4000-8000-000000000000'),
    });
    expect(answer.status).toBe(400);
  });

  it('lists the labels', async () => {
    const answer = await api.call('GET', '/tracker/labels', { auth: owner, teamId: platform });
    expect(answer.json()).toEqual(expect.arrayContaining(['chaos', 'gameday']));
  });

  it('answers 404 No integration exists on a team without the integration', async () => {
    const payments = sim.seed.teams.payments.id;
    const guid = await api.createAttack(owner, payments);
    for (const [method, path, options] of [
      ['GET', '/tracker/issues', { query: { platformEntityIds: guid } }],
      ['POST', '/tracker/issues', { json: ticket(guid) }],
      ['GET', '/tracker/issues/services', { query: { platformEntityId: guid, type: 'ATTACK' } }],
      ['GET', '/tracker/issues/count', { query: { platformEntityIds: guid } }],
      ['GET', '/tracker/issue-meta', { query: { projectId: '10001', issueTypeId: '10004' } }],
      ['GET', '/tracker/labels', {}],
    ] as const) {
      const answer = await api.call(method, path, { auth: owner, teamId: payments, ...options });
      expect(answer.status, path).toBe(404);
      expect(answer.text).toBe('No integration exists');
    }
  });
});
