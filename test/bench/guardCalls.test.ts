import { describe, expect, it } from 'vitest';
import { callKind, countCalls, growth } from '../../bench/guardCalls.ts';

describe('callKind', () => {
  it.each([
    ['GET', '/monitoringA/monitors/1234567', 'guardReads'],
    ['GET', '/monitoringB/alerts', 'guardReads'],
    ['GET', '/attacks/active/paged', 'listPages'],
    ['GET', '/attacks/active', 'listPages'],
    ['GET', '/kubernetes/attacks/active', 'listPages'],
    ['GET', '/attacks/0b6a3f0e-1c2d-4e5f-8a9b-0c1d2e3f4a5b', 'singleGets'],
    ['GET', '/kubernetes/attacks/k8s-1', 'singleGets'],
    ['POST', '/attacks/0b6a3f0e-1c2d-4e5f-8a9b-0c1d2e3f4a5b/halt', 'halts'],
    ['POST', '/kubernetes/attacks/k8s-1/halt', 'halts'],
    // Halting everything is not the halt of one attack, nor is a read of its executions.
    ['POST', '/attacks/halt', 'other'],
    ['GET', '/attacks/0b6a3f0e/executions', 'other'],
    ['GET', '/executions', 'executionReads'],
    ['POST', '/executions', 'other'],
    ['POST', '/attacks/new', 'other'],
    ['GET', '/monitoringA', 'other'],
  ] as const)('%s %s is %s', (method, path, kind) => {
    expect(callKind({ method, path })).toBe(kind);
  });
});

describe('countCalls', () => {
  it('counts each kind and the total', () => {
    const requests = [
      { method: 'GET', path: '/monitoringA/monitors/1' },
      { method: 'GET', path: '/monitoringA/monitors/2' },
      { method: 'GET', path: '/attacks/active/paged' },
      { method: 'POST', path: '/attacks/a/halt' },
      { method: 'GET', path: '/roles' },
      { method: 'GET', path: '/executions' },
    ];
    expect(countCalls(requests)).toEqual({
      guardReads: 2,
      listPages: 1,
      singleGets: 0,
      halts: 1,
      executionReads: 1,
      other: 1,
      total: 6,
    });
    const none = countCalls([]);
    expect(Object.keys(none)).toEqual(Object.keys(countCalls(requests)));
    expect(Object.values(none).every((count) => count === 0)).toBe(true);
  });
});

describe('growth', () => {
  it('is 1 for calls in step with the axis, 0 for flat calls, and undefined without a span', () => {
    expect(
      growth([
        { size: 1, calls: 1 },
        { size: 5, calls: 5 },
        { size: 20, calls: 20 },
      ]),
    ).toBeCloseTo(1);
    expect(
      growth([
        { size: 10, calls: 5 },
        { size: 1000, calls: 5 },
      ]),
    ).toBe(0);
    expect(
      growth([
        { size: 10, calls: 1 },
        { size: 1000, calls: 100 },
      ]),
    ).toBeCloseTo(1);
    expect(growth([{ size: 10, calls: 3 }])).toBeNaN();
    expect(
      growth([
        { size: 10, calls: 0 },
        { size: 100, calls: 3 },
      ]),
    ).toBeNaN();
  });
});
