/**
 * Where an app's CPU goes, by phase of a request, read off a V8 CPU profile (the inspector's
 * Profiler.stop, or a .cpuprofile file written by `node --cpu-prof`): each sample goes to the
 * phase of the innermost frame on its stack that a phase claims, so a pino call made while
 * the platform client reads a response counts as logging, and the HMAC Bolt computes inside its
 * request handling counts as the signature check. Nothing in the app is instrumented.
 */
import type { Profiler } from 'node:inspector';

export type PhaseId =
  | 'signature'
  | 'session'
  | 'parsing'
  | 'platform'
  | 'blockKit'
  | 'slack'
  | 'logging'
  | 'metrics'
  | 'bolt'
  | 'handlers'
  | 'gc'
  | 'other';

interface Phase {
  id: PhaseId;
  label: string;
  /** A frame belongs to the phase when its script URL (and function name, where given) match one of these. */
  frames: { url: RegExp; functionName?: RegExp }[];
}

const modules = (...names: string[]) =>
  new RegExp(`/node_modules/(?:${names.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})/`);

/**
 * The attribution rules, in the order the phases are printed. Where one frame matches two phases,
 * the earlier one wins: the signature check before the rest of Bolt, the store before the rest of
 * Faultline's own code (which comes last). Only the platform client speaks TLS in the benchmark
 * (the fake Slack is plain HTTP). The undici package carries both the platform client and the
 * response_url replies (src/slack/replies.ts), and a frame of its own cannot say which, so its
 * connection and parsing work counts as the platform's; the Web API client goes through Node's
 * built-in fetch. Slack is HTTPS in production, so there the Slack reply costs its TLS on top of
 * what it costs here.
 */
export const phases: readonly Phase[] = [
  {
    id: 'signature',
    label: 'signature check',
    frames: [{ url: /\/@slack\/bolt\/dist\/receivers\/verify-request\.js$/ }, { url: modules('tsscmp') }],
  },
  { id: 'session', label: 'session read/decrypt, store', frames: [{ url: /\/src\/store\// }] },
  {
    id: 'parsing',
    label: 'command parsing',
    frames: [
      { url: /\/src\/commands\/(?:attacks\/(?:parse|validate|builder)|arguments)\.ts$/ },
      { url: /\/src\/commands\/command\.ts$/, functionName: /^splitWords$/ },
      { url: /\/src\/commands\/index\.ts$/, functionName: /^(?:parseCommandText|straightenQuotes|editDistance)$/ },
      { url: modules('yargs-parser') },
    ],
  },
  {
    id: 'platform',
    label: 'platform call, TLS, response validation',
    frames: [
      { url: /\/src\/client\// },
      { url: modules('undici', 'zod') },
      { url: /^node:(?:_tls_wrap|_tls_common|tls|internal\/tls\/)/ },
    ],
  },
  { id: 'blockKit', label: 'Block Kit building', frames: [{ url: /\/src\/views\// }] },
  {
    id: 'slack',
    label: 'Slack reply (response_url, Web API)',
    frames: [
      { url: /\/src\/slack\/(?:messenger|replies)\.ts$/ },
      { url: /\/@slack\/bolt\/dist\/context\/create-respond\.js$/ },
      { url: modules('@slack/web-api', 'p-queue', 'p-retry', 'retry', 'eventemitter3') },
      { url: /^node:internal\/deps\/undici\// },
      // fetch's bodies are web streams; nothing else in the app reads one.
      { url: /^node:internal\/webstreams\// },
    ],
  },
  {
    id: 'logging',
    label: 'logging',
    frames: [
      { url: /\/src\/(?:logger|audit)\.ts$/ },
      {
        url: modules(
          'pino',
          'pino-std-serializers',
          'pino-abstract-transport',
          '@pinojs/redact',
          'sonic-boom',
          'thread-stream',
          'quick-format-unescaped',
          'safe-stable-stringify',
          'atomic-sleep',
          'on-exit-leak-free',
          '@slack/logger',
        ),
      },
      // The benchmark's stand-in for stdout: it counts the lines pino writes.
      { url: /\/bench\/ack-target\.ts$/, functionName: /^write$/ },
    ],
  },
  {
    id: 'metrics',
    label: 'metrics',
    frames: [{ url: /\/src\/metrics\.ts$/ }, { url: modules('prom-client', 'tdigest', 'bintrees') }],
  },
  {
    id: 'bolt',
    label: 'Bolt: HTTP receive, body parsing, routing, ack',
    frames: [
      {
        url: modules(
          '@slack/bolt',
          'raw-body',
          'bytes',
          'http-errors',
          'iconv-lite',
          'unpipe',
          'statuses',
          'depd',
          'path-to-regexp',
        ),
      },
      { url: /^node:(?:_http_server|querystring)$/ },
    ],
  },
  { id: 'handlers', label: 'other Faultline code (handlers, adapter)', frames: [{ url: /\/src\// }] },
  { id: 'gc', label: 'garbage collection', frames: [{ url: /^$/, functionName: /^\(garbage collector\)$/ }] },
  // Node's own streams, sockets, timers and promise queues; V8's compiler and native code; IPC.
  { id: 'other', label: 'other (Node internals, VM, native)', frames: [] },
];

export interface Attribution {
  /** Samples by phase (the thread busy), each a draw of what the thread was doing. */
  samples: Record<PhaseId, number>;
  /** All of `samples` together. */
  busy: number;
  /** Samples with the thread idle, waiting in the event loop. */
  idle: number;
  /** The functions whose samples fell to `other`, as "function url:line", most samples first. */
  otherTop: { frame: string; samples: number }[];
}

type CallFrame = Profiler.ProfileNode['callFrame'];

/** The phase a single frame belongs to, if any claims it; the first in `phases` wins. */
export function phaseOfFrame(frame: Pick<CallFrame, 'url' | 'functionName'>): PhaseId | undefined {
  return phases.find((phase) =>
    phase.frames.some(
      (rule) => rule.url.test(frame.url) && (!rule.functionName || rule.functionName.test(frame.functionName)),
    ),
  )?.id;
}

/**
 * Attributes every sample of `profile` to a phase by the innermost claimed frame of its stack.
 * Samples are counted, not timed: on a busy machine the sampling thread itself waits for a core,
 * so the gaps between samples say more about the machine than about the app. A phase's share of
 * the samples, times the thread's CPU measured apart, gives its CPU.
 */
export function attribute(profile: Profiler.Profile): Attribution {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

  const phaseOfNode = new Map<number, PhaseId | 'idle'>();
  const resolve = (id: number): PhaseId | 'idle' => {
    // Walk up to the innermost claimed frame, then remember the answer for the whole path.
    const path: number[] = [];
    let phase: PhaseId | 'idle' = 'other';
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const known = phaseOfNode.get(at);
      if (known) {
        phase = known;
        break;
      }
      path.push(at);
      const frame = byId.get(at)!.callFrame;
      if (frame.functionName === '(idle)') {
        phase = 'idle';
        break;
      }
      const claimed = phaseOfFrame(frame);
      if (claimed) {
        phase = claimed;
        break;
      }
    }
    for (const at of path) phaseOfNode.set(at, phase);
    return phase;
  };

  const samples = Object.fromEntries(phases.map((phase) => [phase.id, 0])) as Record<PhaseId, number>;
  const other = new Map<string, number>();
  let idle = 0;
  for (const id of profile.samples ?? []) {
    const phase = resolve(id);
    if (phase === 'idle') {
      idle++;
      continue;
    }
    samples[phase]++;
    if (phase === 'other') {
      const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
      const frame =
        `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/node_modules\//, '')}:${lineNumber + 1}` : ''}`.trim();
      other.set(frame, (other.get(frame) ?? 0) + 1);
    }
  }
  const otherTop = [...other]
    .map(([frame, count]) => ({ frame, samples: count }))
    .sort((a, b) => b.samples - a.samples);
  return { samples, busy: Object.values(samples).reduce((sum, each) => sum + each, 0), idle, otherTop };
}

/** Attributions of several profiles taken together. */
export function combine(attributions: readonly Attribution[]): Attribution {
  const samples = Object.fromEntries(phases.map((phase) => [phase.id, 0])) as Record<PhaseId, number>;
  const other = new Map<string, number>();
  for (const each of attributions) {
    for (const phase of phases) samples[phase.id] += each.samples[phase.id];
    for (const entry of each.otherTop) other.set(entry.frame, (other.get(entry.frame) ?? 0) + entry.samples);
  }
  return {
    samples,
    busy: attributions.reduce((sum, each) => sum + each.busy, 0),
    idle: attributions.reduce((sum, each) => sum + each.idle, 0),
    otherTop: [...other].map(([frame, count]) => ({ frame, samples: count })).sort((a, b) => b.samples - a.samples),
  };
}
