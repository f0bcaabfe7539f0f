/**
 * Time from delivering a signed slash command or button click to the app's HTTP answer (its ack),
 * for a bare Bolt app and for Faultline, under the same paced load, while the platform answers
 * every call in 2 s; then the same for Faultline while the platform never answers. Modal
 * submissions are measured too with the platform hanging: Faultline waits up to 2.5 s for their
 * outcome before it acks, the nearest any ack comes to Slack's 3 s.
 *
 * Each app runs in a child process (ack-target.ts), and so does the load client (load-client.ts);
 * this process plays Slack and the platform (the fake Slack and the simulator) and directs the
 * runs. The deliveries are real ones: the fake Slack issues their response_url and trigger_id
 * (see DeliveryCapture), so Faultline's replies after the ack reach the fake Slack and are counted.
 */
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeSlack, type FakeSlack, type SlackPerson } from '../src/fake-slack/index.ts';
import { startSimulator, type Simulator } from '../src/sim/index.ts';
import type { Sample, TargetReport, TargetSpec } from './ack-target.ts';
import { ChildLink } from './child.ts';
import type { Delivery, LoadResult } from './load.ts';
import type { LoadOrder } from './load-client.ts';
import { distribution, percentileRatioInterval } from './stats.ts';
import { formatBytes, formatMs, formatRatio, printTable, type SummaryRow } from './table.ts';

const requestsPerCase = 800;
/** With the platform hanging, what counts is the worst ack, not a ratio. */
const hangRequests = 400;
/** Each waits 2.5 s for a hanging platform; four waves at the same concurrency. */
const submissionRequests = 32;
const warmupRequests = 40;
/** Bare and Faultline take turns, each round a share of the requests, so drift on a shared machine hits both. */
const rounds = 8;
const load = { concurrency: 8, ratePerSecond: 100 };
const platformLatencyMs = 2_000;
const slackDeadlineMs = 3_000;
const targetRatio = 1.1;
const channel = 'C0GENERAL';
const signingSecret = 'bench-signing-secret';
const botToken = 'xoxb-bench-bot-token';

type Kind = 'command' | 'action';
const kinds: Kind[] = ['command', 'action'];
const kindNames: Record<Kind, string> = { command: 'slash command', action: 'button' };

/** One Slack app in its child process. */
class TargetProcess {
  readonly url: string;
  readonly #link: ChildLink;

  private constructor(link: ChildLink, port: number) {
    this.#link = link;
    this.url = `http://127.0.0.1:${port}/slack/events`;
  }

  /** `caFile`: a PEM file the app trusts besides the usual roots (the simulator's certificate). */
  static async start(spec: TargetSpec, caFile: string): Promise<TargetProcess> {
    const link = new ChildLink(new URL('./ack-target.ts', import.meta.url), { env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile }, execArgv: ['--expose-gc'] });
    const { port } = await link.request<{ port: number }>(spec);
    return new TargetProcess(link, port);
  }

  /** CPU, event-loop lag and connections of the app since the previous sample. */
  sample(): Promise<Sample> {
    return this.#link.request<Sample>('sample');
  }

  /** Stops the app, letting it finish its work in flight, and returns what it logged. */
  stop(): Promise<TargetReport | undefined> {
    return this.#link.stop<TargetReport>('stop');
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
 * A stand-in for the bot that keeps each body: the fake Slack delivers to it only while `take`
 * runs, so what it keeps carries a response_url and trigger_id that the fake Slack issued and will
 * honour when the body is replayed to the real bot under load. It answers 503, which the fake Slack
 * takes as no answer and so changes nothing (a submitted modal stays open for the bot to update).
 */
class DeliveryCapture {
  readonly deliveries: Delivery[] = [];
  readonly #server: Server;
  readonly #fake: FakeSlack;
  readonly #botUrl: string;

  private constructor(server: Server, fake: FakeSlack, botUrl: string) {
    this.#server = server;
    this.#fake = fake;
    this.#botUrl = botUrl;
  }

  static async start(fake: FakeSlack, botUrl: string): Promise<DeliveryCapture> {
    const server = createServer();
    const capture = new DeliveryCapture(server, fake, botUrl);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => {
        const json = request.headers['content-type']?.startsWith('application/json') === true;
        capture.deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), contentType: json ? 'application/json' : 'application/x-www-form-urlencoded' });
        response.writeHead(503).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return capture;
  }

  /** Runs `act` with the fake Slack delivering here, and returns what it delivered. */
  async take(act: () => Promise<unknown>): Promise<Delivery[]> {
    const from = this.deliveries.length;
    this.#fake.setBotUrl(`http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/slack/events`);
    try {
      await act();
    } finally {
      this.#fake.setBotUrl(this.#botUrl);
    }
    return this.deliveries.slice(from);
  }

  close(): void {
    this.#server.closeAllConnections();
    this.#server.close();
  }
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
  /** From the end of the load until the work it started was done (Faultline's replies). */
  after?: Sample | undefined;
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
    appGcMaxMs: Math.max(...turns.map((turn) => turn.during.gcMaxMs)),
    appGcMsPerRequest: turns.reduce((sum, turn) => sum + turn.during.gcTotalMs + (turn.after?.gcTotalMs ?? 0), 0) / timings.length,
    appCpuMsPerRequest: turns.reduce((sum, turn) => sum + turn.during.cpuMs + (turn.after?.cpuMs ?? 0), 0) / timings.length,
    platformConnections: turns.reduce((sum, turn) => sum + turn.during.platformConnections + (turn.after?.platformConnections ?? 0), 0),
    clientLoopDelayMaxMs: Math.max(...turns.map((turn) => turn.load.clientLoopDelayMaxMs)),
    appRssBytes: turns.at(-1)!.during.rssBytes,
  };
}

export async function ackBenchmark(): Promise<SummaryRow[]> {
  const sim = await startSimulator();
  const fake = await startFakeSlack({ signingSecret, botToken });
  const spec = { signingSecret, botToken, slackApiUrl: fake.apiUrl, platformUrl: sim.url };
  const caDirectory = await mkdtemp(join(tmpdir(), 'faultline-bench-'));
  const caFile = join(caDirectory, 'platform-ca.pem');
  await writeFile(caFile, sim.ca);
  const processes: TargetProcess[] = [];
  const client = new ChildLink(new URL('./load-client.ts', import.meta.url));
  const send = (url: string, deliveries: Delivery[]) => client.request<LoadResult>({ url, signingSecret, deliveries, shape: load } satisfies LoadOrder);
  try {
    const bare = await TargetProcess.start({ ...spec, kind: 'bare' }, caFile);
    processes.push(bare);
    const faultline = await TargetProcess.start({ ...spec, kind: 'faultline' }, caFile);
    processes.push(faultline);
    const apps = [
      { process: bare, replies: false },
      { process: faultline, replies: true },
    ] as const;

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
    const perKind = warmupRequests + requestsPerCase + hangRequests;
    const capture = await DeliveryCapture.start(fake, faultline.url);
    const deliveries: Record<Kind, Delivery[]> = { command: [], action: [] };
    const submissions: Delivery[] = [];
    try {
      for (let i = 0; i < perKind; i++) {
        deliveries.command.push(...(await capture.take(() => person.command('list', { channel }))));
        deliveries.action.push(...(await capture.take(() => firstPage.click('Next page'))));
      }
      // Each login modal is opened by the real bot, then submitted to the stand-in.
      for (let i = 0; i < submissionRequests; i++) {
        const newcomer = fake.user(`U0BENCHNEW${i}`, { name: `newcomer${i}` });
        await newcomer.command('login');
        const modal = await fake.waitFor(() => newcomer.modal()?.callbackId === 'login' && newcomer.modal(), 'a login modal');
        const { email, password } = sim.seed.users.owner;
        submissions.push(...(await capture.take(() => modal.fill('Email', email).fill('Password', password).submit())));
      }
    } finally {
      capture.close();
    }

    let expectedReplies = fake.callsTo('response_url').length;
    const awaitReplies = async (count: number) => {
      expectedReplies += count;
      const what = `${expectedReplies} replies at the fake Slack`;
      await fake.waitFor(() => fake.callsTo('response_url').length >= expectedReplies, what, 30_000).catch(() => undefined);
    };
    const turn = async (app: (typeof apps)[number], chunk: Delivery[]): Promise<Turn> => {
      await app.process.sample();
      const result = await send(app.process.url, chunk);
      const during = await app.process.sample();
      if (app.replies) await awaitReplies(chunk.length);
      return { load: result, during, after: app.replies ? await app.process.sample() : undefined };
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
      const chunk = deliveries[kind].splice(0, hangRequests);
      await faultline.sample();
      const result = await send(faultline.url, chunk);
      hung.push({ name: `Faultline · ${kindNames[kind]} · platform hangs`, turns: [{ load: result, during: await faultline.sample() }] });
    }
    const heldCalls = sim.requests.filter((request) => request.status === 0).length;
    // Released, the hung calls fail and are retried; the replies that follow show the bot kept working.
    sim.faults.clear();
    await awaitReplies(2 * hangRequests);
    const afterHang = replyCounts(fake);

    const modalUpdates = () => fake.callsTo('views.update').length;
    const modalUpdatesBefore = modalUpdates();
    // After the release above, so that no retry of the calls it held falls in this window.
    sim.faults.inject({ kind: 'hang', times: Infinity });
    await faultline.sample();
    const submitted = await send(faultline.url, submissions);
    const submissionCase = { name: 'Faultline · login modal submit · platform hangs', turns: [{ load: submitted, during: await faultline.sample() }] };
    // Released, each login fails; the bot puts the outcome in the modal it said was working on it.
    sim.faults.clear();
    await fake.waitFor(() => modalUpdates() - modalUpdatesBefore >= submissions.length, 'the modals updated with their outcome', 30_000).catch(() => undefined);
    const modalOutcomes = fake.callsTo('views.update').slice(modalUpdatesBefore);

    const [bareReport, faultlineReport] = await Promise.all(processes.splice(0).map((each) => each.stop()));

    const figures = new Map([...cases, ...hung, submissionCase].map((each) => [each.name, caseFigures(each.turns)]));
    const shape = `${load.ratePerSecond} deliveries/s, at most ${load.concurrency} in flight, ${warmupRequests} warm-up, bare and Faultline alternating in ${rounds} rounds`;
    printTable(`Ack time: signed delivery to the app's HTTP answer · ${shape}`, ['case', 'n', 'p50', 'p95', 'p99', 'max', '>3 s', 'failed'], [...figures].map(([name, f]) => [
      name,
      String(f.ms.count),
      formatMs(f.ms.p50),
      formatMs(f.ms.p95),
      formatMs(f.ms.p99),
      formatMs(f.ms.max),
      String(f.late - f.failed),
      String(f.failed),
    ]));
    printTable(
      'The same cases: load achieved; the app\'s process (event-loop lag, GC, CPU with its work after the ack, platform connections opened, RSS); the load client\'s lag',
      ['case', 'rate', 'in flight', 'loop lag max', 'GC max', 'CPU/req', 'GC/req', 'conns', 'RSS', 'client lag max'],
      [...figures].map(([name, f]) => [
        name,
        `${Math.round(f.rate)}/s`,
        String(f.maxInFlight),
        formatMs(f.appLoopDelayMaxMs),
        formatMs(f.appGcMaxMs),
        formatMs(f.appCpuMsPerRequest),
        formatMs(f.appGcMsPerRequest),
        String(f.platformConnections),
        formatBytes(f.appRssBytes),
        formatMs(f.clientLoopDelayMaxMs),
      ]),
    );

    const ratios = kinds.map((kind, index) => {
      const [bareTimes, faultlineTimes] = [cases[2 * index]!, cases[2 * index + 1]!].map((each) => each.turns.flatMap((t) => t.load.timings.map((timing) => timing.ms)));
      const [bareP99, faultlineP99] = [distribution(bareTimes!).p99, distribution(faultlineTimes!).p99];
      const ratio = faultlineP99 / bareP99;
      const [low, high] = percentileRatioInterval(faultlineTimes!, bareTimes!, 99);
      const verdict = ratio <= targetRatio ? 'met' : low <= targetRatio ? 'missed, within noise' : 'missed';
      return { kind, bareP99, faultlineP99, ratio, interval: `${formatRatio(low)}–${formatRatio(high)}`, verdict };
    });
    printTable(
      `p99 ack, Faultline against bare Bolt, platform answering in ${platformLatencyMs / 1000} s`,
      ['request', 'bare p99', 'Faultline p99', 'ratio', '90% interval (bootstrap)', `target ≤ ${targetRatio.toFixed(2)}×`],
      ratios.map((r) => [kindNames[r.kind], formatMs(r.bareP99), formatMs(r.faultlineP99), formatRatio(r.ratio), r.interval, r.verdict]),
    );

    const hungFigures = hung.map((each) => figures.get(each.name)!);
    const hungMax = Math.max(...hungFigures.map((f) => f.ms.max));
    const hungLate = hungFigures.reduce((sum, f) => sum + f.late, 0);
    const submissionFigures = figures.get(submissionCase.name)!;
    printTable('Faultline\'s work after the ack: replies at the fake Slack (response_urls; views.update for modals)', ['phase', 'list pages', 'other replies', 'refused by Slack', 'expected'], [
      replyRow(`platform ${platformLatencyMs / 1000} s, warm-up included`, beforeLoad, afterLatency, 2 * (warmupRequests + requestsPerCase)),
      replyRow(`platform hangs, ${heldCalls} calls held at the end, then released`, afterLatency, afterHang, 2 * hangRequests),
      ['modal submissions, platform hangs, then released', '–', String(modalOutcomes.filter((call) => call.ok).length), String(modalOutcomes.filter((call) => !call.ok).length), String(submissions.length)],
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
      ...ratios.map((r) => ({
        benchmark: 'ack',
        figure: `p99 ${kindNames[r.kind]}, Faultline / bare (${formatMs(r.faultlineP99)} / ${formatMs(r.bareP99)})`,
        value: `${formatRatio(r.ratio)} (90%: ${r.interval})`,
        target: `≤ ${targetRatio.toFixed(2)}×`,
      })),
      { benchmark: 'ack', figure: 'max ack of a command or button, platform hanging', value: formatMs(hungMax), target: '≤ 3 s' },
      { benchmark: 'ack', figure: 'commands and buttons over 3 s or failed, platform hanging', value: `${hungLate} of ${hungFigures.reduce((sum, f) => sum + f.ms.count, 0)}`, target: '0' },
      { benchmark: 'ack', figure: 'max ack of a modal submission, platform hanging', value: formatMs(submissionFigures.ms.max), target: '≤ 3 s' },
      {
        benchmark: 'ack',
        figure: 'app CPU per request, Faultline / bare (command, platform 2 s)',
        value: `${formatMs(figures.get(cases[1]!.name)!.appCpuMsPerRequest)} / ${formatMs(figures.get(cases[0]!.name)!.appCpuMsPerRequest)}`,
      },
    ];
  } finally {
    sim.faults.clear();
    await client.stop('stop');
    await Promise.all(processes.map((each) => each.stop()));
    await fake.stop();
    await sim.stop();
    await rm(caDirectory, { recursive: true, force: true });
  }
}
