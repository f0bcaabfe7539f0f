/**
 * Time from delivering a signed slash command or button click to the app's HTTP answer (its ack),
 * for a bare Bolt app and for Faultline, under the same paced load, while the platform answers
 * every call in 2 s; then the same for Faultline while the platform never answers.
 *
 * Each app runs in a child process (ack-target.ts); this process is Slack and the platform (the
 * fake Slack and the simulator) and the load client. The deliveries are real ones: the fake Slack
 * issues their response_url and trigger_id (captured on their way to a stand-in, see
 * captureDeliveries), so Faultline's replies after the ack reach the fake Slack and are counted.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startFakeSlack, type FakeSlack, type SlackPerson } from '../src/fake-slack/index.ts';
import { startSimulator, type Simulator } from '../src/sim/index.ts';
import type { Sample, TargetReport, TargetSpec } from './ack-target.ts';
import { runLoad, SignedSender, type Delivery, type LoadResult } from './load.ts';
import { distribution } from './stats.ts';
import { formatBytes, formatMs, formatRatio, printTable, type SummaryRow } from './table.ts';

const requestsPerCase = 400;
const warmupRequests = 40;
/** Bare and Faultline take turns, each round a share of the requests, so drift on a shared machine hits both. */
const rounds = 4;
const load = { concurrency: 8, ratePerSecond: 100 };
const platformLatencyMs = 2_000;
const slackDeadlineMs = 3_000;
const targetRatio = 1.1;
const channel = 'C0GENERAL';
const signingSecret = 'bench-signing-secret';
const botToken = 'xoxb-bench-bot-token';

type Kind = 'command' | 'action';
const kinds: Kind[] = ['command', 'action'];
const kindNames: Record<Kind, string> = { command: 'slash command', action: 'button (block_actions)' };

/** One Slack app in its child process. */
class TargetProcess {
  readonly url: string;
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess, port: number) {
    this.#child = child;
    this.url = `http://127.0.0.1:${port}/slack/events`;
  }

  static async start(spec: TargetSpec): Promise<TargetProcess> {
    const child = fork(fileURLToPath(new URL('./ack-target.ts', import.meta.url)), [], {
      execArgv: [...process.execArgv, '--expose-gc'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const listening = new Promise<number>((resolve, reject) => {
      child.once('message', (message) => resolve((message as { port: number }).port));
      child.once('exit', (code) => reject(new Error(`the ${spec.kind} app exited (code ${code}) before listening`)));
    });
    child.send(spec);
    return new TargetProcess(child, await listening);
  }

  /** CPU and event-loop lag of the app since the previous sample. */
  async sample(): Promise<Sample> {
    const answered = once(this.#child, 'message');
    this.#child.send('sample');
    return (await answered)[0] as Sample;
  }

  /** Stops the app, letting it finish its work in flight, and returns what it logged. */
  async stop(): Promise<TargetReport | undefined> {
    if (this.#child.exitCode !== null) return undefined;
    const exited = once(this.#child, 'exit');
    const reported = once(this.#child, 'message').then(([report]) => report as TargetReport);
    this.#child.send('stop');
    const report = await Promise.race([reported, sleep(30_000, undefined, { ref: false })]);
    if (report === undefined) this.#child.kill();
    await exited;
    return report;
  }
}

/** Logs a person in through the login modal and the team picker, as a person would. */
async function logIn(fake: FakeSlack, sim: Simulator, personId: string): Promise<SlackPerson> {
  const person = fake.user(personId, { name: 'bench' });
  await person.command('login');
  const login = await fake.waitFor(() => person.modal()?.callbackId === 'login' && person.modal(), 'the login modal');
  await login.fill('Email', sim.seed.users.owner.email).fill('Password', sim.seed.users.owner.password).submit();
  const picker = await fake.waitFor(() => person.modal()?.callbackId === 'team_picker' && person.modal(), 'the team picker');
  await picker.choose('Team', sim.seed.teams.platform.name).submit();
  await fake.waitFor(() => person.modal()?.title === 'Logged in', 'the logged-in confirmation');
  return person;
}

/**
 * Lets the fake Slack deliver `count` requests to a stand-in that answers 200 and keeps the body.
 * Replayed later, each carries a response_url and trigger_id that the fake Slack issued and honours.
 */
async function captureDeliveries(fake: FakeSlack, botUrl: string, count: number, act: () => Promise<unknown>): Promise<Delivery[]> {
  const captured: Delivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => {
      const json = request.headers['content-type']?.startsWith('application/json') === true;
      captured.push({ body: Buffer.concat(chunks).toString('utf8'), contentType: json ? 'application/json' : 'application/x-www-form-urlencoded' });
      response.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  fake.setBotUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`);
  try {
    for (let i = 0; i < count; i++) await act();
  } finally {
    fake.setBotUrl(botUrl);
    server.closeAllConnections();
    server.close();
  }
  return captured;
}

/** Faultline's replies at the fake Slack's response_urls: list pages, anything else, and refusals. */
function replyCounts(fake: FakeSlack): { pages: number; other: number; refused: number } {
  const replies = fake.callsTo('response_url');
  const pages = replies.filter((call) => call.ok && /attacks · .*: \d+ on page \d+$/.test(String(call.args['text']))).length;
  const refused = replies.filter((call) => !call.ok).length;
  return { pages, other: replies.length - pages - refused, refused };
}

function replyRow(phase: string, before: ReturnType<typeof replyCounts>, after: ReturnType<typeof replyCounts>, expected: number): string[] {
  return [phase, String(after.pages - before.pages), String(after.other - before.other), String(after.refused - before.refused), String(expected)];
}

/** One app's share of a case: the client's timings, and its process during the load and after it. */
interface Turn {
  load: LoadResult;
  during: Sample;
  /** CPU spent after the load on the work it started (Faultline's replies). */
  afterCpuMs: number;
}

interface Case {
  name: string;
  turns: Turn[];
}

function caseFigures(turns: Turn[]) {
  const timings = turns.flatMap((turn) => turn.load.timings);
  const seconds = turns.reduce((sum, turn) => sum + turn.load.seconds, 0);
  return {
    ms: distribution(timings.map((timing) => timing.ms)),
    late: timings.filter((timing) => timing.ms > slackDeadlineMs || timing.status !== 200).length,
    failed: timings.filter((timing) => timing.status !== 200).length,
    rate: timings.length / seconds,
    maxInFlight: Math.max(...turns.map((turn) => turn.load.maxInFlight)),
    appLoopDelayMaxMs: Math.max(...turns.map((turn) => turn.during.loopDelayMaxMs)),
    appCpuMsPerRequest: turns.reduce((sum, turn) => sum + turn.during.cpuMs + turn.afterCpuMs, 0) / timings.length,
    clientLoopDelayMaxMs: Math.max(...turns.map((turn) => turn.load.clientLoopDelayMaxMs)),
    appRssBytes: turns.at(-1)!.during.rssBytes,
  };
}

export async function ackBenchmark(): Promise<SummaryRow[]> {
  const sim = await startSimulator();
  const fake = await startFakeSlack({ signingSecret, botToken });
  const spec = { signingSecret, botToken, slackApiUrl: fake.apiUrl, platformUrl: sim.url, platformCa: sim.ca };
  const processes: TargetProcess[] = [];
  const senders: SignedSender[] = [];
  try {
    const bare = await TargetProcess.start({ ...spec, kind: 'bare' });
    processes.push(bare);
    const faultline = await TargetProcess.start({ ...spec, kind: 'faultline' });
    processes.push(faultline);
    const apps = [
      { process: bare, sender: new SignedSender(bare.url, signingSecret, load.concurrency), replies: false },
      { process: faultline, sender: new SignedSender(faultline.url, signingSecret, load.concurrency), replies: true },
    ] as const;
    senders.push(...apps.map((app) => app.sender));

    // A logged-in person and a team with more than a page of active attacks: `list` and its Next
    // page button both make Faultline call the platform once it has acked.
    fake.setBotUrl(faultline.url);
    const person = await logIn(fake, sim, 'U0BENCHACK');
    sim.addAttacks(sim.seed.teams.platform.id, 100);
    await person.command('list', { channel });
    const firstPage = await fake.waitFor(
      () => person.ephemerals(channel).find((message) => message.buttons().some((button) => button.text === 'Next page')),
      'a list page with a Next page button',
    );
    const perKind = warmupRequests + 2 * requestsPerCase;
    const deliveries: Record<Kind, Delivery[]> = {
      command: await captureDeliveries(fake, faultline.url, perKind, () => person.command('list', { channel })),
      action: await captureDeliveries(fake, faultline.url, perKind, () => firstPage.click('Next page')),
    };

    let expectedReplies = fake.callsTo('response_url').length;
    const awaitReplies = async (count: number) => {
      expectedReplies += count;
      const what = `${expectedReplies} replies at the fake Slack`;
      await fake.waitFor(() => fake.callsTo('response_url').length >= expectedReplies, what, 30_000).catch(() => undefined);
    };
    const turn = async (app: (typeof apps)[number], chunk: Delivery[]): Promise<Turn> => {
      await app.process.sample();
      const result = await runLoad(chunk, (delivery) => app.sender.send(delivery), load);
      const during = await app.process.sample();
      if (app.replies) await awaitReplies(chunk.length);
      return { load: result, during, afterCpuMs: app.replies ? (await app.process.sample()).cpuMs : 0 };
    };

    const beforeLoad = replyCounts(fake);
    const cases: Case[] = [];
    sim.faults.inject({ kind: 'latency', ms: platformLatencyMs, times: Infinity });
    for (const kind of kinds) {
      const queue = deliveries[kind];
      const warmup = queue.splice(0, warmupRequests);
      for (const app of apps) await turn(app, warmup);
      const [bareCase, faultlineCase] = [
        { name: `bare Bolt · ${kindNames[kind]}`, turns: [] as Turn[] },
        { name: `Faultline · ${kindNames[kind]} · platform ${platformLatencyMs / 1000} s`, turns: [] as Turn[] },
      ];
      for (let round = 0; round < rounds; round++) {
        // Bare Bolt ignores response_urls, so both apps get the very same bodies.
        const chunk = queue.splice(0, requestsPerCase / rounds);
        bareCase.turns.push(await turn(apps[0], chunk));
        faultlineCase.turns.push(await turn(apps[1], chunk));
      }
      cases.push(bareCase, faultlineCase);
    }
    sim.faults.clear();
    const afterLatency = replyCounts(fake);

    sim.faults.inject({ kind: 'hang', times: Infinity });
    const hung: Case[] = [];
    for (const kind of kinds) {
      const chunk = deliveries[kind].splice(0, requestsPerCase);
      await faultline.sample();
      const result = await runLoad(chunk, (delivery) => apps[1].sender.send(delivery), load);
      hung.push({ name: `Faultline · ${kindNames[kind]} · platform hangs`, turns: [{ load: result, during: await faultline.sample(), afterCpuMs: 0 }] });
    }
    const heldCalls = sim.requests.filter((request) => request.status === 0).length;
    // Released, the hung calls fail and are retried; the replies that follow show the bot kept working.
    sim.faults.clear();
    await awaitReplies(2 * requestsPerCase);
    const afterHang = replyCounts(fake);

    const [bareReport, faultlineReport] = await Promise.all(processes.splice(0).map((each) => each.stop()));

    const figures = new Map([...cases, ...hung].map((each) => [each.name, caseFigures(each.turns)]));
    printTable(
      `Ack time: signed delivery to the app's HTTP answer · ${load.ratePerSecond} deliveries/s, at most ${load.concurrency} in flight, ${warmupRequests} warm-up, bare and Faultline alternating in ${rounds} rounds`,
      ['case', 'n', 'p50', 'p95', 'p99', 'max', '>3 s', 'non-200', 'rate', 'in flight', 'app loop lag max', 'app CPU/request', 'app RSS', 'client loop lag max'],
      [...figures].map(([name, f]) => [
        name,
        String(f.ms.count),
        formatMs(f.ms.p50),
        formatMs(f.ms.p95),
        formatMs(f.ms.p99),
        formatMs(f.ms.max),
        String(f.late - f.failed),
        String(f.failed),
        `${Math.round(f.rate)}/s`,
        String(f.maxInFlight),
        formatMs(f.appLoopDelayMaxMs),
        formatMs(f.appCpuMsPerRequest),
        formatBytes(f.appRssBytes),
        formatMs(f.clientLoopDelayMaxMs),
      ]),
    );

    const p99 = (index: number) => figures.get(cases[index]!.name)!.ms.p99;
    const ratios = kinds.map((kind, index) => ({ kind, bare: p99(2 * index), faultline: p99(2 * index + 1), ratio: p99(2 * index + 1) / p99(2 * index) }));
    printTable(
      `p99 ack, Faultline against bare Bolt, platform answering in ${platformLatencyMs / 1000} s`,
      ['request', 'bare p99', 'Faultline p99', 'ratio', `target ≤ ${targetRatio.toFixed(2)}×`],
      ratios.map(({ kind, bare: b, faultline: f, ratio }) => [kindNames[kind], formatMs(b), formatMs(f), formatRatio(ratio), ratio <= targetRatio ? 'met' : 'missed']),
    );

    const hungFigures = hung.map((each) => figures.get(each.name)!);
    const hungMax = Math.max(...hungFigures.map((f) => f.ms.max));
    const hungLate = hungFigures.reduce((sum, f) => sum + f.late, 0);
    printTable('Faultline\'s work after the ack: replies posted to the fake Slack\'s response_urls', ['phase', 'list pages', 'other replies', 'refused by Slack', 'expected'], [
      replyRow(`platform ${platformLatencyMs / 1000} s, warm-up included`, beforeLoad, afterLatency, 2 * (warmupRequests + requestsPerCase)),
      replyRow(`platform hangs, ${heldCalls} calls held at the end, then released`, afterLatency, afterHang, 2 * requestsPerCase),
    ]);
    const reportRow = (name: string, report: TargetReport | undefined) =>
      report
        ? [name, formatBytes(report.rssBytes), formatBytes(report.heapAfterGcBytes), String(report.errorLogs), String(report.warnLogs), report.errors.join(' | ')]
        : [name, '–', '–', '–', '–', 'no report'];
    printTable('The apps\' processes after the load, stopped', ['app', 'RSS', 'heap after GC', 'error logs', 'warn logs', 'first errors'], [
      reportRow('bare Bolt', bareReport),
      reportRow('Faultline', faultlineReport),
    ]);

    return [
      ...ratios.map(({ kind, bare: b, faultline: f, ratio }) => ({
        benchmark: 'ack',
        figure: `p99 ${kindNames[kind]}, Faultline / bare (${formatMs(f)} / ${formatMs(b)})`,
        value: formatRatio(ratio),
        target: `≤ ${targetRatio.toFixed(2)}×`,
      })),
      { benchmark: 'ack', figure: 'max ack, platform hanging', value: formatMs(hungMax), target: '≤ 3 s' },
      { benchmark: 'ack', figure: 'acks over 3 s or failed, platform hanging', value: `${hungLate} of ${hungFigures.reduce((sum, f) => sum + f.ms.count, 0)}`, target: '0' },
      {
        benchmark: 'ack',
        figure: 'app CPU per request, Faultline / bare (command, platform 2 s)',
        value: `${formatMs(figures.get(cases[1]!.name)!.appCpuMsPerRequest)} / ${formatMs(figures.get(cases[0]!.name)!.appCpuMsPerRequest)}`,
      },
    ];
  } finally {
    sim.faults.clear();
    await Promise.all(senders.map((sender) => sender.close()));
    await Promise.all(processes.map((each) => each.stop()));
    await fake.stop();
    await sim.stop();
  }
}
