import { describe, expect, it } from 'vitest';
import {
  alertBSchema,
  monitorASchema,
  monitorSearchASchema,
  attackForServiceListSchema,
  attackListSchema,
  haltAnswerSchema,
  attackSchema,
  companySessionSchema,
  createdIdSchema,
  issueCountSchema,
  issueMetaSchema,
  kubernetesAttackSchema,
  teamClientSchema,
  trackerIssueSchema,
} from '../../src/client/schemas.ts';
import { alertHealth, monitorHealth } from '../../src/client/monitoring.ts';

describe('lenient schemas', () => {
  it('keeps unknown fields of an attack', () => {
    const attack = attackSchema.parse({ guid: 'g-1', stage: 'Running', blast_radius: { hosts: 3 } });
    expect(attack['blast_radius']).toEqual({ hosts: 3 });
    expect(attack.stage).toBe('Running');
  });

  it('accepts an attack with nothing but its guid', () => {
    const attack = attackSchema.parse({ guid: 'g-1' });
    expect(attack.args).toEqual([]);
    expect(attack.targets).toEqual([]);
    expect(attack.stage_lifecycle).toBeUndefined();
    expect(attack.annotations).toBeUndefined();
  });

  it('turns nulls and unexpected types of optional fields into absent values', () => {
    const attack = attackSchema.parse({
      guid: 'g-1',
      end_time: null,
      total_clients: 'three',
      args: 'not-a-list',
      infra_command: 'cpu',
      annotations: { note: 'ok' },
    });
    expect(attack.end_time).toBeUndefined();
    expect(attack.total_clients).toBeUndefined();
    expect(attack.args).toEqual([]);
    expect(attack.infra_command).toBeUndefined();
    expect(attack.annotations).toEqual({ note: 'ok' });
  });

  it('requires the guid', () => {
    expect(attackSchema.safeParse({ stage: 'Running' }).success).toBe(false);
  });

  it('reads a company session with missing optional fields', () => {
    const session = companySessionSchema.parse({
      header: 'Bearer t',
      teams: [{ identifier: 'team-1', name: 'Platform', future_flag: true }],
    });
    expect(session.roles).toEqual([]);
    expect(session.expires_at).toBeUndefined();
    expect(session.teams[0]?.privileges).toEqual([]);
    expect(session.teams[0]?.['future_flag']).toBe(true);
  });

  it('reads an empty halt answer as no attacks', () => {
    expect(attackListSchema.parse('')).toEqual([]);
    expect(attackListSchema.parse([{ guid: 'g' }])).toHaveLength(1);
  });

  it('tells a halt that stopped nothing from one answered without a body', () => {
    expect(haltAnswerSchema.parse([])).toEqual([]);
    expect(haltAnswerSchema.parse('')).toBeUndefined();
    expect(haltAnswerSchema.parse([{ guid: 'g', stage_lifecycle: 'Halting' }])?.map((a) => a.guid)).toEqual(['g']);
  });

  it('reads a created id as text, quoted text or an object', () => {
    expect(createdIdSchema.parse('0b7f3c1e-aaaa')).toBe('0b7f3c1e-aaaa');
    expect(createdIdSchema.parse('"0b7f3c1e-aaaa"\n')).toBe('0b7f3c1e-aaaa');
    expect(createdIdSchema.parse({ guid: 'g-2' })).toBe('g-2');
    expect(createdIdSchema.safeParse('').success).toBe(false);
    // Not an id: text a proxy might answer with must never become an attack id on a card.
    expect(createdIdSchema.safeParse('<html><body>Bad gateway</body></html>').success).toBe(false);
    expect(createdIdSchema.safeParse('Internal error').success).toBe(false);
  });

  it('reads attacks-for-service sent as JSON text', () => {
    const list = attackForServiceListSchema.parse('[{"serviceId":"s","type":"Host","attackId":"a"}]');
    expect(list).toEqual([{ serviceId: 's', type: 'Host', attackId: 'a' }]);
  });

  it('reads an issue count as a number, text or { count }', () => {
    expect(issueCountSchema.parse(3)).toBe(3);
    expect(issueCountSchema.parse('4')).toBe(4);
    expect(issueCountSchema.parse({ count: 5 })).toBe(5);
    expect(issueCountSchema.safeParse('many').success).toBe(false);
  });

  it('reads tracker and Kubernetes records with only their ids', () => {
    expect(trackerIssueSchema.parse({ key: 'OPS-1' }).summary).toBeUndefined();
    expect(kubernetesAttackSchema.parse({ guid: 'k' }).impact_definition).toBeUndefined();
  });

  it('reads issue meta with optional parts missing', () => {
    const meta = issueMetaSchema.parse({
      fields: [
        { key: 'priority', required: 'yes', allowedValues: [{ id: 3, name: 'Medium' }] },
        { key: 'summary', required: true },
      ],
    });
    expect(meta.project).toBeUndefined();
    expect(meta.fields[0]).toMatchObject({
      key: 'priority',
      required: false,
      allowedValues: [{ id: '3', name: 'Medium' }],
    });
    expect(meta.fields[1]?.required).toBe(true);
  });
});

describe('client records', () => {
  it('read a host with only its identifier: no tags, no containers, activity not said', () => {
    expect(teamClientSchema.parse({ identifier: 'web-1' })).toEqual({
      identifier: 'web-1',
      active: undefined,
      tags: {},
      containers: [],
      last_seen: undefined,
    });
  });

  it('keep tag and label values sent as numbers or booleans as text, dropping only those that cannot be', () => {
    const client = teamClientSchema.parse({
      identifier: 'web-1',
      active: 'yes',
      tags: { role: 'web', rack: 12, canary: false, owner: null, extra: { a: 1 } },
      containers: [{ id: 'c-1', labels: { app: 'checkout', replica: 2 } }, { labels: null }],
      cpu_count: 8,
    });
    expect(client.active).toBeUndefined();
    expect(client.tags).toEqual({ role: 'web', rack: '12', canary: 'false' });
    expect(client.containers).toEqual([
      { id: 'c-1', name: undefined, labels: { app: 'checkout', replica: '2' } },
      { id: undefined, name: undefined, labels: {} },
    ]);
    expect(client['cpu_count']).toBe(8);
    expect(teamClientSchema.parse({ identifier: 'web-1', tags: 'role=web', containers: {} })).toMatchObject({
      tags: {},
      containers: [],
    });
  });

  it('require the identifier, the name an Exact target uses', () => {
    expect(teamClientSchema.safeParse({ tags: { role: 'web' } }).success).toBe(false);
  });
});

describe('monitoring records', () => {
  it('read a monitor whose id is a number or text, with fields missing or null', () => {
    expect(monitorASchema.parse({ id: 1234567 }).id).toBe('1234567');
    const monitor = monitorASchema.parse({ id: '42', name: 'p99', overall_state: null, tags: 'team:x', priority: 2 });
    expect(monitor).toMatchObject({ id: '42', name: 'p99', overall_state: undefined, tags: [], priority: 2 });
    expect(() => monitorASchema.parse({ name: 'no id' })).toThrow();
  });

  it('read a search answer without metadata, and skip nothing of the monitors', () => {
    expect(monitorSearchASchema.parse({ monitors: [{ id: 1 }] })).toEqual({
      monitors: [{ id: '1', tags: [] }],
      metadata: undefined,
    });
    expect(monitorSearchASchema.parse({}).monitors).toEqual([]);
  });

  it('read an alert with a null active_at, and an alert monitor with a numeric id', () => {
    const alert = alertBSchema.parse({
      name: 'CheckoutErrorRate',
      state: 'inactive',
      active_at: null,
      labels: ['wrong'],
    });
    expect([alert.name, alert.state, alert.active_at, alert.labels]).toEqual([
      'CheckoutErrorRate',
      'inactive',
      undefined,
      undefined,
    ]);
  });
});

describe('health of monitors and alerts', () => {
  it.each([
    ['Alert', 'unhealthy'],
    ['OK', 'healthy'],
    ['Warn', 'healthy'],
    ['Skipped', 'healthy'],
    ['Ignored', 'healthy'],
    ['No Data', 'unknown'],
    ['Unknown', 'unknown'],
    [undefined, 'unknown'],
    ['Exploded', 'unknown'],
  ] as const)('monitor %s is %s', (state, health) => {
    expect(monitorHealth({ overall_state: state })).toBe(health);
  });

  it.each([
    ['firing', 'unhealthy'],
    ['pending', 'healthy'],
    ['inactive', 'healthy'],
    [undefined, 'unknown'],
    ['resolved', 'unknown'],
  ] as const)('alert %s is %s', (state, health) => {
    expect(alertHealth({ state })).toBe(health);
  });
});
