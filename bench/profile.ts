/**
 * Where a request's CPU goes in Faultline, by phase, next to a bare Bolt app that only acks: a
 * slash command that reads the platform (`list`), one that only parses and previews (`attack …`),
 * a Halt click and an attack builder submission. Nothing in the app is instrumented: the app runs
 * in its own process (ack-target.ts) with the inspector's sampling profiler on, and each sample's
 * self time goes to a phase by its call stack (phases.ts). Per-request totals come from
 * process.cpuUsage() in runs without the profiler, which costs CPU of its own. The profiler
 * samples the main thread only; the other threads (GC helpers, the compiler, libuv) are counted
 * apart.
 *
 * Every delivery is a real one, captured from the fake Slack (see DeliveryCapture in ack.ts), so
 * the replies Faultline sends after its ack reach the fake Slack; a run ends when they all have.
 * The profiles are kept, for Chrome DevTools (Performance, Load profile) or any .cpuprofile viewer.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import type { Profiler } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeSlack, SlackPerson } from '@faultline/fake-slack';
import type { Simulator } from '@faultline/platform-sim';
import { attackRefValue } from '../src/views/attacks/attackCard.ts';
import {
  DeliveryCapture,
  logIn,
  signingSecret,
  startBackends,
  startBareAndFaultline,
  type TargetProcess,
} from './ack.ts';
import { ChildLink } from './child.ts';
import type { Delivery, LoadResult } from './load.ts';
import type { LoadOrder } from './load-client.ts';
import { attribute, combine, phases, type Attribution } from './phases.ts';
import { formatMs, formatRatio, printTable, type SummaryRow } from './table.ts';

const requestsPerKind = 200;
const warmupRequests = 20;
/** Gentle pacing: the profile should show work, not a queue. */
const load = { concurrency: 4, ratePerSecond: 50 };
/** V8 samples every 1 ms by default: finer gives more samples per phase, and costs the app more CPU. */
const samplingIntervalUs = 500;
/** After the last reply: a moment for what follows it (logs, metrics) before CPU is read. */
const settleMs = 200;
const channel = 'C0GENERAL';
const previewCommand = 'attack cpu -l 60 -c 1 --target-tags role=web';

type Kind = 'list' | 'preview' | 'halt' | 'submit';
/** Each delivery gets exactly one response_url reply from Faultline, which says it worked when it matches. */
const kinds: { kind: Kind; name: string; reply: RegExp }[] = [
  { kind: 'list', name: '/chaos list', reply: /attacks · .*: \d+ on page \d+$/ },
  { kind: 'preview', name: '/chaos attack (preview)', reply: /^Start a cpu attack on / },
  { kind: 'halt', name: 'Halt click', reply: /^:octagonal_sign: Halt requested for attack / },
  { kind: 'submit', name: 'builder submit', reply: /^Start a cpu attack on / },
];

/** The same click on another attack's Halt button. */
function withActionValue(delivery: Delivery, value: string): Delivery {
  const form = new URLSearchParams(delivery.body);
  const payload = JSON.parse(form.get('payload') ?? '{}') as { actions?: { value?: string }[] };
  if (!payload.actions?.[0]) throw new Error('A captured click without an action');
  payload.actions[0].value = value;
  form.set('payload', JSON.stringify(payload));
  return { ...delivery, body: form.toString() };
}

/** Opens the attack builder through Faultline, fills it for a cpu attack and submits it to `capture`. */
async function captureSubmission(fake: FakeSlack, person: SlackPerson, capture: DeliveryCapture): Promise<Delivery[]> {
  await person.command('attack', { channel });
  const builder = await fake.waitFor(
    () => person.modal()?.callbackId === 'attack_builder' && person.modal(),
    'the attack builder',
  );
  await builder.select('Attack type', 'cpu');
  const typed = await fake.waitFor(
    () => person.modal()?.text().includes('Cores') && person.modal(),
    'the cpu arguments',
  );
  await typed.select('Target', 'Random hosts, by tags');
  // The builder is redrawn with a Tags field in place of the generic one.
  const filled = await fake.waitFor(() => {
    const modal = person.modal();
    try {
      return modal?.fill('Tags', 'role=web');
    } catch {
      return undefined;
    }
  }, 'the builder for tags');
  filled.fill('Length in seconds', '60').fill('Cores (-c)', '1');
  const taken = await capture.take(() => filled.submit());
  await filled.close();
  return taken;
}

/** Deliveries of each kind: warm-up, then a run without the profiler, then one with it. */
async function captureAll(fake: FakeSlack, sim: Simulator, faultlineUrl: string): Promise<Record<Kind, Delivery[]>> {
  const count = warmupRequests + 2 * requestsPerKind;
  fake.setBotUrl(faultlineUrl);
  const person = await logIn(fake, sim, 'U0BENCHPROF');
  const teamId = sim.seed.teams.platform.id;
  // More than a page of attacks that stay active, so every `list` shows a full page with Next;
  // and one attack for each Halt click.
  sim.addAttacks(teamId, 30);
  const toHalt = sim.addAttacks(teamId, count);
  await person.command('list', { channel });
  const page = await fake.waitFor(
    () => person.ephemerals(channel).find((message) => message.buttons().some((button) => button.text === 'Halt')),
    'a list page with Halt buttons',
  );
  const captured: Record<Kind, Delivery[]> = { list: [], preview: [], halt: [], submit: [] };
  const capture = await DeliveryCapture.start(fake, faultlineUrl);
  try {
    for (let i = 0; i < count; i++) {
      captured.list.push(...(await capture.take(() => person.command('list', { channel }))));
      captured.preview.push(...(await capture.take(() => person.command(previewCommand, { channel }))));
      const clicks = await capture.take(() => page.click('Halt'));
      captured.halt.push(
        ...clicks.map((click) => withActionValue(click, attackRefValue({ guid: toHalt[i]!, teamId, kind: 'attack' }))),
      );
      captured.submit.push(...(await captureSubmission(fake, person, capture)));
    }
  } finally {
    capture.close();
  }
  for (const { kind } of kinds)
    if (captured[kind].length !== count)
      throw new Error(`Captured ${captured[kind].length} ${kind} deliveries, not ${count}`);
  return captured;
}

/** One app's run of one kind: its CPU, the profile when taken, the load's outcome. */
interface Run {
  cpuMs: number;
  mainThreadCpuMs: number;
  requests: number;
  failed: number;
  profile?: Profiler.Profile;
  /** Faultline's replies at the fake Slack: how many came, and how many said what they should. */
  replies?: { came: number; right: number };
}

/** Runs of one app, taken together. */
const together = (runs: readonly Run[]) => ({
  cpuMs: runs.reduce((sum, run) => sum + run.cpuMs, 0),
  mainThreadCpuMs: runs.reduce((sum, run) => sum + run.mainThreadCpuMs, 0),
  requests: runs.reduce((sum, run) => sum + run.requests, 0),
});

/**
 * One column of the budget: each phase's share of the profile's busy samples times the main
 * thread's CPU per request in the run without the profiler; then the other threads and the total.
 */
function budget(
  attribution: Attribution,
  plain: { cpuMs: number; mainThreadCpuMs: number; requests: number },
): string[] {
  const mainMs = plain.mainThreadCpuMs / plain.requests;
  return [
    ...phases.map((phase) => formatMs((attribution.samples[phase.id] / attribution.busy) * mainMs)),
    formatMs(mainMs),
    formatMs((plain.cpuMs - plain.mainThreadCpuMs) / plain.requests),
    formatMs(plain.cpuMs / plain.requests),
    String(attribution.busy),
  ];
}

export async function profileBenchmark(): Promise<SummaryRow[]> {
  const backends = await startBackends();
  const { sim, fake } = backends;
  const profileDirectory = await mkdtemp(join(tmpdir(), 'faultline-profiles-'));
  const processes: TargetProcess[] = [];
  const client = new ChildLink(new URL('./load-client.ts', import.meta.url));
  const send = (url: string, deliveries: Delivery[]) =>
    client.request<LoadResult>({ url, signingSecret, deliveries, shape: load } satisfies LoadOrder);
  try {
    const { bare, faultline } = await startBareAndFaultline(backends, processes);
    const deliveries = await captureAll(fake, sim, faultline.url);

    const run = async (
      app: TargetProcess,
      chunk: Delivery[],
      reply: RegExp | undefined,
      profiled: boolean,
    ): Promise<Run> => {
      const repliesBefore = fake.callsTo('response_url').length;
      await app.sample();
      if (profiled) await app.startProfile(samplingIntervalUs);
      const result = await send(app.url, chunk);
      let replies: Run['replies'];
      if (reply) {
        const what = `${chunk.length} replies at the fake Slack`;
        await fake
          .waitFor(() => fake.callsTo('response_url').length - repliesBefore >= chunk.length, what, 30_000)
          .catch(() => undefined);
        const came = fake.callsTo('response_url').slice(repliesBefore);
        replies = {
          came: came.length,
          right: came.filter((call) => call.ok && reply.test(String(call.args['text']))).length,
        };
      }
      await sleep(settleMs);
      const { cpuMs, mainThreadCpuMs } = await app.sample();
      const profile = profiled ? await app.stopProfile() : undefined;
      return {
        cpuMs,
        mainThreadCpuMs,
        requests: chunk.length,
        failed: result.timings.filter((timing) => timing.status !== 200).length,
        ...(profile ? { profile } : {}),
        ...(replies ? { replies } : {}),
      };
    };

    const results: {
      kind: Kind;
      name: string;
      bare: Run;
      faultline: Run;
      bareProfiled: Run;
      faultlineProfiled: Run;
    }[] = [];
    for (const { kind, name, reply } of kinds) {
      const queue = deliveries[kind];
      const warmup = queue.splice(0, warmupRequests);
      await run(bare, warmup, undefined, false);
      await run(faultline, warmup, reply, false);
      // Bare Bolt ignores response_urls, so both apps get the very same bodies.
      const plain = queue.splice(0, requestsPerKind);
      const bareRun = await run(bare, plain, undefined, false);
      const faultlineRun = await run(faultline, plain, reply, false);
      const sampled = queue.splice(0, requestsPerKind);
      const bareProfiled = await run(bare, sampled, undefined, true);
      const faultlineProfiled = await run(faultline, sampled, reply, true);
      results.push({ kind, name, bare: bareRun, faultline: faultlineRun, bareProfiled, faultlineProfiled });
      for (const [app, profiledRun] of [
        ['bare', bareProfiled],
        ['faultline', faultlineProfiled],
      ] as const) {
        await writeFile(join(profileDirectory, `${app}-${kind}.cpuprofile`), JSON.stringify(profiledRun.profile));
      }
    }

    const perRequest = (ms: number, requests: number) => formatMs(ms / requests);
    const faultlineAttributions = results.map((result) => attribute(result.faultlineProfiled.profile!));
    const bareAttribution = combine(results.map((result) => attribute(result.bareProfiled.profile!)));
    const columns = [
      ...results.map((result, index) => budget(faultlineAttributions[index]!, result.faultline)),
      budget(bareAttribution, together(results.map((result) => result.bare))),
    ];
    const rowLabels = [
      ...phases.map((phase) => phase.label),
      'main thread, all phases',
      'other threads (GC helpers, compiler, libuv)',
      'total (process.cpuUsage)',
      'samples (busy) in the profile',
    ];
    printTable(
      `Faultline's CPU per request by phase, ms, and a bare Bolt app's that only acks: a phase's share of the app's CPU profile (a sample every ${samplingIntervalUs} µs) times its main thread's CPU per request without the profiler · ${requestsPerKind} requests of each kind, ${load.ratePerSecond}/s, at most ${load.concurrency} in flight`,
      ['phase', ...results.map((result) => result.name), 'bare Bolt (all four)'],
      rowLabels.map((label, row) => [label, ...columns.map((column) => column[row]!)]),
    );

    printTable(
      'CPU per request, whole process (process.cpuUsage: user + system, every thread) without the profiler, and with it; failed = deliveries not answered 200',
      [
        'request',
        'Faultline',
        'bare Bolt',
        'Faultline / bare',
        'Faultline, profiled',
        'failed',
        'replies right / expected',
      ],
      results.map((result) => [
        result.name,
        perRequest(result.faultline.cpuMs, result.faultline.requests),
        perRequest(result.bare.cpuMs, result.bare.requests),
        formatRatio(result.faultline.cpuMs / result.faultline.requests / (result.bare.cpuMs / result.bare.requests)),
        perRequest(result.faultlineProfiled.cpuMs, result.faultlineProfiled.requests),
        String(
          result.faultline.failed + result.bare.failed + result.faultlineProfiled.failed + result.bareProfiled.failed,
        ),
        `${(result.faultline.replies?.right ?? 0) + (result.faultlineProfiled.replies?.right ?? 0)} / ${result.faultline.requests + result.faultlineProfiled.requests}`,
      ]),
    );

    const faultlineAll = combine(faultlineAttributions);
    printTable(
      `What "other" holds in Faultline's profiles, by share of their busy samples (all four kinds); the profiles are kept in ${profileDirectory}`,
      ['function', 'share'],
      faultlineAll.otherTop
        .slice(0, 8)
        .map((entry) => [entry.frame, `${((100 * entry.samples) / faultlineAll.busy).toFixed(1)} %`]),
    );

    return results.flatMap((result) => {
      const [faultline, bare] = [
        result.faultline.cpuMs / result.faultline.requests,
        result.bare.cpuMs / result.bare.requests,
      ];
      return [
        {
          benchmark: 'profile',
          figure: `CPU per request, ${result.name}, Faultline / bare`,
          value: faultline / bare,
          unit: '×',
        },
        { benchmark: 'profile', figure: `CPU per request, ${result.name}, Faultline`, value: faultline, unit: 'ms' },
        { benchmark: 'profile', figure: `CPU per request, ${result.name}, bare Bolt`, value: bare, unit: 'ms' },
      ];
    });
  } finally {
    await client.stop('stop');
    await Promise.all(processes.map((each) => each.stop()));
    await backends.stop();
  }
}
