import type { Profiler } from 'node:inspector';
import { describe, expect, it } from 'vitest';
import { attribute, combine, phaseOfFrame } from '../../bench/phases.ts';

const app = 'file:///srv/faultline';

/** A call tree as nested [functionName, url, children]; ids are given in depth-first order from 1. */
type Tree = [string, string, Tree[]?];

/** A profile of `root` whose samples land on the named functions, in order, `count` times each. */
function profileOf(root: Tree, samples: { at: string; count: number }[]): Profiler.Profile {
  const nodes: Profiler.ProfileNode[] = [];
  const idByName = new Map<string, number>();
  const add = ([functionName, url, children = []]: Tree): number => {
    const node: Profiler.ProfileNode = {
      id: nodes.length + 1,
      callFrame: { functionName, url, scriptId: '0', lineNumber: 0, columnNumber: 0 },
      children: [],
    };
    nodes.push(node);
    idByName.set(functionName, node.id);
    node.children = children.map(add);
    return node.id;
  };
  add(root);
  const ids = samples.flatMap(({ at, count }) => Array.from({ length: count }, () => idByName.get(at)!));
  // A sample every 500 µs, but for one late by 400 ms, as when the sampling thread waits for a core.
  const timeDeltas = ids.map((_, i) => (i === 3 ? 400_000 : 500));
  const startTime = 5_000_000;
  return {
    nodes,
    startTime,
    endTime: startTime + timeDeltas.reduce((sum, delta) => sum + delta, 0) + 500,
    samples: ids,
    timeDeltas,
  };
}

const tree: Tree = [
  '(root)',
  '',
  [
    ['(program)', ''],
    ['(idle)', ''],
    ['(garbage collector)', ''],
    [
      'onRequest',
      'node:_http_server',
      [
        [
          'parseAndVerifyHTTPRequest',
          '/srv/faultline/node_modules/@slack/bolt/dist/receivers/HTTPModuleFunctions.js',
          [
            [
              'verifySlackRequest',
              '/srv/faultline/node_modules/@slack/bolt/dist/receivers/verify-request.js',
              [['digest', 'node:internal/crypto/hash']],
            ],
            ['parse', 'node:querystring'],
          ],
        ],
      ],
    ],
    [
      'processTicksAndRejections',
      'node:internal/process/task_queues',
      [
        [
          'requireLogin',
          `${app}/src/attacks/access.ts`,
          [
            [
              'read',
              `${app}/src/store/sessions.ts`,
              [['open', `${app}/src/store/cipher.ts`, [['update', 'node:internal/crypto/cipher']]]],
            ],
          ],
        ],
        [
          'send',
          `${app}/src/client/request.ts`,
          [
            [
              'debug',
              '/srv/faultline/node_modules/pino/lib/proto.js',
              [['write', '/srv/faultline/node_modules/sonic-boom/index.js']],
            ],
            ['safeParse', '/srv/faultline/node_modules/zod/v4/core/parse.js'],
            ['inc', '/srv/faultline/node_modules/prom-client/lib/counter.js'],
          ],
        ],
        [
          'run',
          `${app}/src/commands/attacks/list.ts`,
          [
            ['stringify', ''],
            [
              'attackListMessage',
              `${app}/src/views/attacks/attackList.ts`,
              [['escapeMrkdwn', `${app}/src/views/blocks.ts`, [['replace', '']]]],
            ],
            ['respondTo', `${app}/src/slack/messenger.ts`, [['fetch', 'node:internal/deps/undici/undici']]],
          ],
        ],
        [
          'parseAttackCommand',
          `${app}/src/commands/attacks/parse.ts`,
          [['tokenize', `${app}/src/commands/attacks/parse.ts`]],
        ],
      ],
    ],
  ],
];

describe('attributing a CPU profile to the phases of a request', () => {
  it('counts each sample for the innermost frame a phase claims, however late it came', () => {
    const profile = profileOf(tree, [
      { at: 'digest', count: 2 },
      { at: 'verifySlackRequest', count: 1 },
      { at: 'parse', count: 1 },
      { at: 'onRequest', count: 1 },
      { at: 'update', count: 3 },
      { at: 'write', count: 1 },
      { at: 'safeParse', count: 2 },
      { at: 'inc', count: 1 },
      { at: 'stringify', count: 2 },
      { at: 'replace', count: 4 },
      { at: 'fetch', count: 5 },
      { at: 'tokenize', count: 1 },
      { at: '(garbage collector)', count: 1 },
      { at: '(program)', count: 2 },
      { at: 'processTicksAndRejections', count: 1 },
      { at: '(idle)', count: 10 },
    ]);
    const attributed = attribute(profile);
    expect(attributed.samples).toEqual({
      signature: 3,
      session: 3,
      parsing: 1,
      platform: 2,
      blockKit: 4,
      slack: 5,
      // pino called from the platform client: logging, not the platform call.
      logging: 1,
      metrics: 1,
      // The HTTP server and Bolt's body parsing, but not the HMAC inside them.
      bolt: 2,
      handlers: 2,
      gc: 1,
      other: 3,
    });
    expect(attributed.busy).toBe(28);
    expect(attributed.idle).toBe(10);
    expect(attributed.otherTop).toEqual([
      { frame: '(program)', samples: 2 },
      { frame: 'processTicksAndRejections node:internal/process/task_queues:1', samples: 1 },
    ]);
  });

  it('adds up several profiles', () => {
    const one = attribute(
      profileOf(tree, [
        { at: 'digest', count: 2 },
        { at: '(program)', count: 1 },
      ]),
    );
    const two = attribute(
      profileOf(tree, [
        { at: 'digest', count: 1 },
        { at: 'stringify', count: 1 },
        { at: '(program)', count: 3 },
        { at: '(idle)', count: 4 },
      ]),
    );
    const both = combine([one, two]);
    expect([both.samples.signature, both.samples.handlers, both.samples.other, both.busy, both.idle]).toEqual([
      3, 1, 4, 8, 4,
    ]);
    expect(both.otherTop).toEqual([{ frame: '(program)', samples: 4 }]);
  });

  it("tells the platform client (the undici package) from Slack calls (Node's own fetch)", () => {
    expect(
      phaseOfFrame({ functionName: 'request', url: '/srv/faultline/node_modules/undici/lib/api/api-request.js' }),
    ).toBe('platform');
    expect(phaseOfFrame({ functionName: 'fetch', url: 'node:internal/deps/undici/undici' })).toBe('slack');
    expect(
      phaseOfFrame({ functionName: 'apiCall', url: '/srv/faultline/node_modules/@slack/web-api/dist/WebClient.js' }),
    ).toBe('slack');
  });

  it("counts only the benchmark log sink's write as logging, and the rest of Faultline's code last", () => {
    expect(phaseOfFrame({ functionName: 'write', url: 'file:///srv/faultline/bench/ack-target.ts' })).toBe('logging');
    expect(phaseOfFrame({ functionName: 'sample', url: 'file:///srv/faultline/bench/ack-target.ts' })).toBeUndefined();
    expect(phaseOfFrame({ functionName: 'parseCommandText', url: `${app}/src/commands/index.ts` })).toBe('parsing');
    expect(phaseOfFrame({ functionName: 'runCommand', url: `${app}/src/commands/index.ts` })).toBe('handlers');
    expect(phaseOfFrame({ functionName: 'get', url: `${app}/src/store/keyValue.ts` })).toBe('session');
  });
});
