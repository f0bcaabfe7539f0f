/**
 * Time from delivering a signed slash command or button click to the app's HTTP answer (its ack),
 * for a bare Bolt app and for Faultline, under the same paced load, while the platform answers
 * every call in 2 s; then the same for Faultline while the platform never answers. Modal
 * submissions are measured too with the platform hanging: Faultline waits up to 2 s for their
 * outcome before it acks, the nearest any ack comes to Slack's 3 s. Last, a burst of slash
 * commands arrives while Faultline runs a poll pass over 10,000 live cards, the heaviest work a
 * background pass does on the same event loop as the acks; bare Bolt takes the same burst.
 *
 * Each app runs in a child process (ack-target.ts), and so does the load client (load-client.ts);
 * this process plays Slack and the platform (the fake Slack and the simulator) and directs the
 * runs. The deliveries are real ones: the fake Slack issues their response_url and trigger_id
 * (see DeliveryCapture), so Faultline's replies after the ack reach the fake Slack and are counted.
 */
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Profiler } from 'node:inspector';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeSlack, type FakeSlack, type SlackPerson } from '@faultline/fake-slack';
import { startSimulator, type Simulator } from '@faultline/platform-sim';
import type { CardRecord } from '../src/attacks/cards.ts';
import type {
  CardsOrder,
  PollOrder,
  PollTiming,
  ProfileOrder,
  Sample,
  TargetReport,
  TargetSpec,
} from './ack-target.ts';
import { ChildLink } from './child.ts';
import type { Delivery, LoadResult } from './load.ts';
import type { LoadOrder } from './load-client.ts';
import { distribution, percentileRatioInterval } from './stats.ts';
import { formatBytes, formatMs, formatRatio, printTable, type SummaryRow } from './table.ts';
import { startedCard } from '../test/support/cards.ts';

const requestsPerCase = 800;
/** With the platform hanging, what counts is the worst ack, not a ratio. */
const hangRequests = 400;
/** Each waits 2.5 s for a hanging platform; four waves at the same concurrency. */
const submissionRequests = 32;
const warmupRequests = 40;
/** Bare and Faultline take turns, each round a share of the requests, so drift on a shared machine hits both. */
const rounds = 8;
const load = { concurrency: 8, ratePerSecond: 100 };
/** The second condition: a crowd of commands at once, 200 in flight (the client's cap), platform still 2 s. */
const crowd = { concurrency: 200, ratePerSecond: 2_000 };
const crowdRequests = 400;
/**
 * The burst during a poll pass: this many commands at once, while the pass reads and redraws this
 * many live cards. Each app takes it on new connections (Node takes one per turn of its event loop).
 */
const burst = { name: 'burst', concurrency: 200, ratePerSecond: 2_000 };
const burstRequests = 200;
const passCards = 10_000;
const burstTargetMs = 250;
/** Faultline's resident memory after the load, against bare Bolt's in the same run. */
const rssTargetRatio = 1.5;
const platformLatencyMs = 2_000;
const slackDeadlineMs = 3_000;
const channel = 'C0GENERAL';
/** The Slack user whose deliveries are replayed. */
const benchPerson = 'U0BENCHACK';
export const signingSecret = 'bench-signing-secret';
const botToken = 'xoxb-bench-bot-token';

type Kind = 'command' | 'action';
const kinds: Kind[] = ['command', 'action'];
const kindNames: Record<Kind, string> = { command: 'slash command', action: 'button' };

/**
 * The simulator and the fake Slack that the app processes talk to, what an app needs to reach
 * them (`spec`), and the simulator's certificate in a file the apps trust (`caFile`).
 */
export async function startBackends() {
  const sim = await startSimulator();
  const fake = await startFakeSlack({ signingSecret, botToken });
  const caDirectory = await mkdtemp(join(tmpdir(), 'faultline-bench-'));
  const caFile = join(caDirectory, 'platform-ca.pem');
  await writeFile(caFile, sim.ca);
  return {
    sim,
    fake,
    caFile,
    spec: { signingSecret, botToken, slackApiUrl: fake.apiUrl, platformUrl: sim.url },
    async stop() {
      sim.faults.clear();
      await fake.stop();
      await sim.stop();
      await rm(caDirectory, { recursive: true, force: true });
    },
  };
}

/** A bare Bolt app and Faultline against the backends, each added to `processes` to be stopped. */
export async function startBareAndFaultline(
  backends: Awaited<ReturnType<typeof startBackends>>,
  processes: TargetProcess[],
) {
  const bare = await TargetProcess.start({ ...backends.spec, kind: 'bare' }, backends.caFile);
  processes.push(bare);
  const faultline = await TargetProcess.start({ ...backends.spec, kind: 'faultline' }, backends.caFile);
  processes.push(faultline);
  return { bare, faultline };
}

/** One Slack app in its child process. */
export class TargetProcess {
  readonly url: string;
  readonly #link: ChildLink;

  private constructor(link: ChildLink, port: number) {
    this.#link = link;
    this.url = `http://127.0.0.1:${port}/slack/events`;
  }

  /** `caFile`: a PEM file the app trusts besides the usual roots (the simulator's certificate). */
  static async start(spec: TargetSpec, caFile: string): Promise<TargetProcess> {
    const link = new ChildLink(new URL('./ack-target.ts', import.meta.url), {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile },
      // Faultline with the V8 flag it starts with in production (package.json's start, the Dockerfile).
      execArgv: ['--expose-gc', ...(spec.kind === 'faultline' ? ['--max-semi-space-size=8'] : [])],
    });
    const { port } = await link.request<{ port: number }>(spec);
    return new TargetProcess(link, port);
  }

  /** CPU, event-loop lag and connections of the app since the previous sample. */
  sample(): Promise<Sample> {
    return this.#link.request<Sample>('sample');
  }

  /** Starts sampling the app's call stacks, one sample every `intervalUs` microseconds. */
  async startProfile(intervalUs: number): Promise<void> {
    await this.#link.request({ profile: 'start', intervalUs } satisfies ProfileOrder);
  }

  /** The CPU profile since startProfile (Chrome DevTools opens it saved as a .cpuprofile file). */
  stopProfile(): Promise<Profiler.Profile> {
    return this.#link.request<Profiler.Profile>({ profile: 'stop' } satisfies ProfileOrder);
  }

  /** Faultline: saves these live cards in its store. */
  async saveCards(cards: CardRecord[]): Promise<void> {
    await this.#link.request({ cards } satisfies CardsOrder);
  }

  /** Faultline: starts a poll pass and returns at once. */
  async startPoll(): Promise<void> {
    await this.#link.request({ poll: 'start' } satisfies PollOrder);
  }

  /** Faultline: waits for the poll pass started and says when it ran. */
  pollTiming(): Promise<PollTiming> {
    return this.#link.request<PollTiming>({ poll: 'wait' } satisfies PollOrder);
  }

  /** Stops the app, letting it finish its work in flight, and returns what it logged. */
  stop(): Promise<TargetReport | undefined> {
    return this.#link.stop<TargetReport>('stop');
  }
}

/** Logs a person in through the login modal and the team picker, as a person would. */
export async function logIn(fake: FakeSlack, sim: Simulator, personId: string): Promise<SlackPerson> {
  // Their Slack e-mail is the login's, as Faultline matches them.
  const person = fake.user(personId, { name: 'bench', email: sim.seed.users.owner.email });
  // The confirmation of an earlier login would be taken for the new login modal.
  await person.modal()?.close();
  await person.command('login');
  const login = await fake.waitFor(() => person.modal()?.callbackId === 'login' && person.modal(), 'the login modal');
  await login.fill('Email', sim.seed.users.owner.email).fill('Password', sim.seed.users.owner.password).submit();
  const picker = await fake.waitFor(
    () => person.modal()?.callbackId === 'team_picker' && person.modal(),
    'the team picker',
  );
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
export class DeliveryCapture {
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
      request
        .on('data', (chunk: Buffer) => chunks.push(chunk))
        .on('end', () => {
          const json = request.headers['content-type']?.startsWith('application/json') === true;
          capture.deliveries.push({
            body: Buffer.concat(chunks).toString('utf8'),
            contentType: json ? 'application/json' : 'application/x-www-form-urlencoded',
          });
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
  const pages = replies.filter(
    (call) => call.ok && /attacks · .*: \d+ on page \d+$/.test(String(call.args['text'])),
  ).length;
  const refused = replies.filter((call) => !call.ok).length;
  return { pages, other: replies.length - pages - refused, refused };
}

function replyRow(
  phase: string,
  before: ReturnType<typeof replyCounts>,
  after: ReturnType<typeof replyCounts>,
  expected: number,
): string[] {
  return [
    phase,
    String(after.pages - before.pages),
    String(after.other - before.other),
    String(after.refused - before.refused),
    String(expected),
  ];
}

/** The deliveries of every run: `list` commands, Next page clicks and login modal submissions. */
async function captureAll(
  fake: FakeSlack,
  sim: Simulator,
  faultlineUrl: string,
): Promise<Record<Kind, Delivery[]> & { submissions: Delivery[] }> {
  // A logged-in person and a team with more than a page of active attacks: `list` and its Next
  // page button both make Faultline call the platform once it has acked.
  fake.setBotUrl(faultlineUrl);
  const person = await logIn(fake, sim, benchPerson);
  sim.addAttacks(sim.seed.teams.platform.id, 100);
  await person.command('list', { channel });
  const firstPage = await fake.waitFor(
    () => person.ephemerals(channel).find((message) => message.buttons().some((button) => button.text === 'Next page')),
    'a list page with a Next page button',
  );
  const captured = { command: [] as Delivery[], action: [] as Delivery[], submissions: [] as Delivery[] };
  const capture = await DeliveryCapture.start(fake, faultlineUrl);
  try {
    for (let i = 0; i < warmupRequests + requestsPerCase + hangRequests; i++) {
      captured.command.push(...(await capture.take(() => person.command('list', { channel }))));
      captured.action.push(...(await capture.take(() => firstPage.click('Next page'))));
    }
    for (let i = 0; i < crowdRequests + burstRequests; i++)
      captured.command.push(...(await capture.take(() => person.command('list', { channel }))));
    // Each login modal is opened by the real bot, then submitted to the stand-in.
    const { email, password } = sim.seed.users.owner;
    for (let i = 0; i < submissionRequests; i++) {
      const newcomer = fake.user(`U0BENCHNEW${i}`, { name: `newcomer${i}`, email });
      await newcomer.command('login');
      const modal = await fake.waitFor(
        () => newcomer.modal()?.callbackId === 'login' && newcomer.modal(),
        'a login modal',
      );
      captured.submissions.push(
        ...(await capture.take(() => modal.fill('Email', email).fill('Password', password).submit())),
      );
    }
  } finally {
    capture.close();
  }
  return captured;
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

const timesOf = (turns: Turn[]) => turns.flatMap((turn) => turn.load.timings.map((timing) => timing.ms));

function caseFigures({ turns }: Case) {
  const timings = turns.flatMap((turn) => turn.load.timings);
  const total = (of: (sample: Sample) => number) =>
    turns.reduce((sum, turn) => sum + of(turn.during) + (turn.after ? of(turn.after) : 0), 0);
  return {
    ms: distribution(timesOf(turns)),
    overDeadline: timings.filter((timing) => timing.status === 200 && timing.ms > slackDeadlineMs).length,
    failed: timings.filter((timing) => timing.status !== 200).length,
    rate: timings.length / turns.reduce((sum, turn) => sum + turn.load.seconds, 0),
    maxInFlight: Math.max(...turns.map((turn) => turn.load.maxInFlight)),
    clientLoopDelayMaxMs: Math.max(...turns.map((turn) => turn.load.clientLoopDelayMaxMs)),
    appLoopDelayMaxMs: Math.max(...turns.map((turn) => turn.during.loopDelayMaxMs)),
    appGcMaxMs: Math.max(...turns.map((turn) => turn.during.gcMaxMs)),
    appGcMsPerRequest: total((sample) => sample.gcTotalMs) / timings.length,
    appCpuMsPerRequest: total((sample) => sample.cpuMs) / timings.length,
    platformConnections: total((sample) => sample.platformConnections),
    appRssBytes: turns.at(-1)!.during.rssBytes,
  };
}

function printCases(cases: Case[]): void {
  const figures = cases.map((each) => [each.name, caseFigures(each)] as const);
  const shape = `${load.ratePerSecond} deliveries/s, at most ${load.concurrency} in flight, ${warmupRequests} warm-up, bare and Faultline alternating in ${rounds} rounds`;
  printTable(
    `Ack time: signed delivery to the app's HTTP answer · ${shape}`,
    ['case', 'n', 'p50', 'p95', 'p99', 'max', '>3 s', 'failed'],
    figures.map(([name, f]) => [
      name,
      String(f.ms.count),
      formatMs(f.ms.p50),
      formatMs(f.ms.p95),
      formatMs(f.ms.p99),
      formatMs(f.ms.max),
      String(f.overDeadline),
      String(f.failed),
    ]),
  );
  printTable(
    "The same cases: load achieved; the app's process (event-loop lag, GC, CPU with its work after the ack, platform connections opened, RSS); the load client's lag",
    ['case', 'rate', 'in flight', 'loop lag max', 'GC max', 'CPU/req', 'GC/req', 'conns', 'RSS', 'client lag max'],
    figures.map(([name, f]) => [
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
}

/** A live card of the burst's poll pass, as a start from Slack saves it; its message is never looked at. */
function liveCard(guid: string, index: number, team: { id: string; name: string }, workspaceId: string): CardRecord {
  return startedCard({
    guid,
    teamId: team.id,
    teamName: team.name,
    channel,
    ts: `1700000000.${String(index).padStart(6, '0')}`,
    startedBy: { workspaceId, userId: benchPerson, userName: 'bench' },
  });
}

/** Faultline's p99 over bare Bolt's, with how far chance alone could move it. */
function compare(kind: Kind, bare: Case, faultline: Case) {
  const [bareTimes, faultlineTimes] = [timesOf(bare.turns), timesOf(faultline.turns)];
  const [bareP99, faultlineP99] = [distribution(bareTimes).p99, distribution(faultlineTimes).p99];
  const ratio = faultlineP99 / bareP99;
  const [low, high] = percentileRatioInterval(faultlineTimes, bareTimes, 99);
  return { kind, bareP99, faultlineP99, ratio, interval: `${formatRatio(low)}–${formatRatio(high)}` };
}

export async function ackBenchmark(): Promise<SummaryRow[]> {
  const backends = await startBackends();
  const { sim, fake } = backends;
  const processes: TargetProcess[] = [];
  const client = new ChildLink(new URL('./load-client.ts', import.meta.url));
  const send = (url: string, deliveries: Delivery[], shape = load) =>
    client.request<LoadResult>({ url, signingSecret, deliveries, shape } satisfies LoadOrder);
  try {
    const { bare, faultline } = await startBareAndFaultline(backends, processes);
    // The burst during a poll pass has a Faultline of its own, so that its 10,000 cards stay out
    // of the other's memory and CPU figures.
    const passing = await TargetProcess.start({ ...backends.spec, kind: 'faultline' }, backends.caFile);
    processes.push(passing);
    const deliveries = await captureAll(fake, sim, faultline.url);
    // The same person logged in there too, so that it does the same work with the same deliveries.
    fake.setBotUrl(passing.url);
    await logIn(fake, sim, benchPerson);
    fake.setBotUrl(faultline.url);

    let expectedReplies = fake.callsTo('response_url').length;
    const awaitReplies = async (count: number) => {
      expectedReplies += count;
      const what = `${expectedReplies} replies at the fake Slack`;
      await fake
        .waitFor(() => fake.callsTo('response_url').length >= expectedReplies, what, 30_000)
        .catch(() => undefined);
    };
    /** One run on one app; Faultline's replies are awaited so they never overlap the next run. */
    const turn = async (app: TargetProcess, chunk: Delivery[], shape = load): Promise<Turn> => {
      await app.sample();
      const result = await send(app.url, chunk, shape);
      const during = await app.sample();
      if (app === bare) return { load: result, during };
      await awaitReplies(chunk.length);
      return { load: result, during, after: await app.sample() };
    };

    // Platform answering in 2 s.
    const beforeLoad = replyCounts(fake);
    const pairs: { kind: Kind; bare: Case; faultline: Case }[] = [];
    sim.faults.inject({ kind: 'latency', ms: platformLatencyMs, times: Infinity });
    for (const kind of kinds) {
      const queue = deliveries[kind];
      const warmup = queue.splice(0, warmupRequests);
      for (const app of [bare, faultline]) await turn(app, warmup);
      const pair = {
        kind,
        bare: { name: `bare Bolt · ${kindNames[kind]}`, turns: [] as Turn[] },
        faultline: {
          name: `Faultline · ${kindNames[kind]} · platform ${platformLatencyMs / 1000} s`,
          turns: [] as Turn[],
        },
      };
      for (let round = 0; round < rounds; round++) {
        // Bare Bolt ignores response_urls, so both apps get the very same bodies.
        const chunk = queue.splice(0, requestsPerCase / rounds);
        pair.bare.turns.push(await turn(bare, chunk));
        pair.faultline.turns.push(await turn(faultline, chunk));
      }
      pairs.push(pair);
    }
    // The crowd and the burst: the commands left over from the hang runs' share, all at once.
    const burstChunk = deliveries.command.splice(-burstRequests);
    const crowdChunk = deliveries.command.splice(-crowdRequests);
    const crowdPair = {
      bare: { name: `bare Bolt · slash command · ${crowd.concurrency} in flight`, turns: [] as Turn[] },
      faultline: {
        name: `Faultline · slash command · ${crowd.concurrency} in flight · platform ${platformLatencyMs / 1000} s`,
        turns: [] as Turn[],
      },
    };
    for (let round = 0; round < 2; round++) {
      const half = crowdChunk.slice(round * (crowdRequests / 2), (round + 1) * (crowdRequests / 2));
      crowdPair.bare.turns.push(await turn(bare, half, crowd));
      crowdPair.faultline.turns.push(await turn(faultline, half, crowd));
    }
    sim.faults.clear();
    const afterLatency = replyCounts(fake);

    // Platform hanging: commands and buttons.
    sim.faults.inject({ kind: 'hang', times: Infinity });
    const hung: Case[] = [];
    for (const kind of kinds) {
      const chunk = deliveries[kind].splice(0, hangRequests);
      await faultline.sample();
      const result = await send(faultline.url, chunk);
      hung.push({
        name: `Faultline · ${kindNames[kind]} · platform hangs`,
        turns: [{ load: result, during: await faultline.sample() }],
      });
    }
    const heldCalls = sim.requests.filter((request) => request.status === 0).length;
    // Released, the hung calls fail and are retried; the replies that follow show the bot kept working.
    sim.faults.clear();
    await awaitReplies(2 * hangRequests);
    const afterHang = replyCounts(fake);

    // Platform hanging: modal submissions, after the release above so that no retry of the calls
    // it held falls in this window.
    const modalUpdates = () => fake.callsTo('views.update');
    const modalUpdatesBefore = modalUpdates().length;
    sim.faults.inject({ kind: 'hang', times: Infinity });
    await faultline.sample();
    const submitted = await send(faultline.url, deliveries.submissions);
    const submissionCase = {
      name: 'Faultline · login modal submit · platform hangs',
      turns: [{ load: submitted, during: await faultline.sample() }],
    };
    // Released, each login fails; the bot puts the outcome in the modal it said was working on it.
    sim.faults.clear();
    const what = 'the modals updated with their outcome';
    await fake
      .waitFor(() => modalUpdates().length - modalUpdatesBefore >= submissionRequests, what, 30_000)
      .catch(() => undefined);
    const modalOutcomes = modalUpdates().slice(modalUpdatesBefore);

    // A burst of commands while a poll pass refreshes 10,000 live cards, every one of them changed
    // (the simulator has moved each attack past the stage its card shows).
    const team = sim.seed.teams.platform;
    const passGuids = sim.addAttacks(team.id, passCards, { createUser: sim.seed.users.owner.email });
    await passing.saveCards(passGuids.map((guid, index) => liveCard(guid, index, team, fake.teamId)));
    const bareBurst = await turn(bare, burstChunk, burst);
    await passing.startPoll();
    const passingBurst = await turn(passing, burstChunk, burst);
    const pass = await passing.pollTiming();
    const burstCase = {
      name: `Faultline · slash command · ${burst.concurrency} at once · poll pass over ${passCards.toLocaleString('en')} cards`,
      turns: [passingBurst],
    };
    const bareBurstCase = { name: `bare Bolt · slash command · ${burst.concurrency} at once`, turns: [bareBurst] };
    const sentDuringPass = passingBurst.load.timings.filter(
      (timing) => timing.at !== undefined && timing.at >= pass.startedAt && timing.at <= pass.endedAt,
    ).length;

    const [bareReport, faultlineReport, passingReport] = await Promise.all(
      processes.splice(0).map((each) => each.stop()),
    );

    printCases([
      ...pairs.flatMap((pair) => [pair.bare, pair.faultline]),
      crowdPair.bare,
      crowdPair.faultline,
      ...hung,
      submissionCase,
      bareBurstCase,
      burstCase,
    ]);
    const comparisons = [
      ...pairs.map((pair) => compare(pair.kind, pair.bare, pair.faultline)),
      { ...compare('command', crowdPair.bare, crowdPair.faultline), crowd: true },
    ];
    const requestName = (c: (typeof comparisons)[number]) =>
      `${kindNames[c.kind]}${'crowd' in c ? `, ${crowd.concurrency} in flight` : `, ${load.concurrency} in flight, ${load.ratePerSecond}/s`}`;
    printTable(
      `p99 ack, Faultline against bare Bolt, platform answering in ${platformLatencyMs / 1000} s`,
      ['request', 'bare p99', 'Faultline p99', 'ratio', '90% interval (bootstrap)'],
      comparisons.map((c) => [
        requestName(c),
        formatMs(c.bareP99),
        formatMs(c.faultlineP99),
        formatRatio(c.ratio),
        c.interval,
      ]),
    );
    const burstFigures = caseFigures(burstCase);
    printTable(
      `The burst during a poll pass: ${burst.concurrency} slash commands at once while Faultline refreshes ${passCards.toLocaleString('en')} live cards`,
      [
        'pass',
        'cards',
        'commands sent during the pass',
        'p99 ack',
        'bare Bolt p99 ack',
        `target ≤ ${burstTargetMs} ms`,
      ],
      [
        [
          formatMs(pass.endedAt - pass.startedAt),
          String(pass.cards),
          `${sentDuringPass} of ${burstRequests}`,
          formatMs(burstFigures.ms.p99),
          formatMs(caseFigures(bareBurstCase).ms.p99),
          burstFigures.ms.p99 <= burstTargetMs ? 'met' : 'missed',
        ],
      ],
    );
    printTable(
      "Faultline's work after the ack: replies at the fake Slack (response_urls; views.update for modals)",
      ['phase', 'list pages', 'other replies', 'refused by Slack', 'expected'],
      [
        replyRow(
          `platform ${platformLatencyMs / 1000} s, warm-up and crowd included`,
          beforeLoad,
          afterLatency,
          2 * (warmupRequests + requestsPerCase) + crowdRequests,
        ),
        replyRow(
          `platform hangs, ${heldCalls} calls held at the end, then released`,
          afterLatency,
          afterHang,
          2 * hangRequests,
        ),
        [
          'modal submissions, platform hangs, then released',
          '–',
          String(modalOutcomes.filter((call) => call.ok).length),
          String(modalOutcomes.filter((call) => !call.ok).length),
          String(submissionRequests),
        ],
      ],
    );
    const reportRow = (name: string, report: TargetReport | undefined) =>
      report
        ? [
            name,
            formatBytes(report.rssBytes),
            formatBytes(report.heapAfterGcBytes),
            formatBytes(report.heapTotalBytes),
            formatBytes(report.externalBytes),
            String(report.errorLogs),
            String(report.warnLogs),
            report.errors.join(' | '),
          ]
        : [name, '–', '–', '–', '–', '–', '–', 'no report'];
    printTable(
      "The apps' processes after the load, stopped",
      ['app', 'RSS', 'heap after GC', 'V8 heap kept', 'external', 'error logs', 'warn logs', 'first errors'],
      [
        reportRow('bare Bolt', bareReport),
        reportRow('Faultline', faultlineReport),
        reportRow(`Faultline with ${passCards.toLocaleString('en')} live cards (the burst)`, passingReport),
      ],
    );

    const hungFigures = hung.map(caseFigures);
    const [bareCommand, faultlineCommand] = [caseFigures(pairs[0]!.bare), caseFigures(pairs[0]!.faultline)];
    const figureName = (c: (typeof comparisons)[number]) =>
      `${kindNames[c.kind]}${'crowd' in c ? `, ${crowd.concurrency} in flight` : ''}`;
    const overDeadline = hungFigures.reduce((sum, f) => sum + f.overDeadline + f.failed, 0);
    const rssRatio = (faultlineReport?.rssBytes ?? Number.NaN) / (bareReport?.rssBytes ?? Number.NaN);
    const mib = (bytes: number | undefined) => (bytes ?? Number.NaN) / 1024 ** 2;
    return [
      ...comparisons.flatMap((c) => [
        {
          benchmark: 'ack',
          figure: `p99 ${figureName(c)}, Faultline / bare`,
          value: c.ratio,
          unit: '×',
          detail: `90%: ${c.interval}`,
        },
        { benchmark: 'ack', figure: `p99 ${figureName(c)}, Faultline`, value: c.faultlineP99, unit: 'ms' },
        { benchmark: 'ack', figure: `p99 ${figureName(c)}, bare Bolt`, value: c.bareP99, unit: 'ms' },
      ]),
      {
        benchmark: 'ack',
        figure: 'max ack of a command or button, platform hanging',
        value: Math.max(...hungFigures.map((f) => f.ms.max)),
        unit: 'ms',
        target: `≤ ${slackDeadlineMs} ms`,
        met: Math.max(...hungFigures.map((f) => f.ms.max)) <= slackDeadlineMs,
      },
      {
        benchmark: 'ack',
        figure: 'commands and buttons over 3 s or failed, platform hanging',
        value: overDeadline,
        unit: 'requests',
        target: '0',
        met: overDeadline === 0,
        detail: `of ${hungFigures.reduce((sum, f) => sum + f.ms.count, 0)}`,
      },
      {
        benchmark: 'ack',
        figure: 'max ack of a modal submission, platform hanging',
        value: caseFigures(submissionCase).ms.max,
        unit: 'ms',
        target: `≤ ${slackDeadlineMs} ms`,
        met: caseFigures(submissionCase).ms.max <= slackDeadlineMs,
      },
      {
        benchmark: 'ack',
        figure: `p99 ack of ${burst.concurrency} slash commands at once during a poll pass over ${passCards.toLocaleString('en')} live cards`,
        value: burstFigures.ms.p99,
        unit: 'ms',
        target: `≤ ${burstTargetMs} ms`,
        met: burstFigures.ms.p99 <= burstTargetMs,
        detail: `${sentDuringPass} of ${burstRequests} sent during the pass`,
      },
      {
        benchmark: 'ack',
        figure: 'RSS after the load, stopped, Faultline / bare',
        value: rssRatio,
        unit: '×',
        target: `≤ ${rssTargetRatio.toFixed(1)}×`,
        met: rssRatio <= rssTargetRatio,
      },
      {
        benchmark: 'ack',
        figure: 'RSS after the load, stopped, Faultline',
        value: mib(faultlineReport?.rssBytes),
        unit: 'MiB',
      },
      {
        benchmark: 'ack',
        figure: 'RSS after the load, stopped, bare Bolt',
        value: mib(bareReport?.rssBytes),
        unit: 'MiB',
      },
      {
        benchmark: 'ack',
        figure: 'app CPU per request, Faultline (command, platform 2 s)',
        value: faultlineCommand.appCpuMsPerRequest,
        unit: 'ms',
      },
      {
        benchmark: 'ack',
        figure: 'app CPU per request, bare Bolt (command)',
        value: bareCommand.appCpuMsPerRequest,
        unit: 'ms',
      },
    ];
  } finally {
    sim.faults.clear();
    await client.stop('stop');
    await Promise.all(processes.map((each) => each.stop()));
    await backends.stop();
  }
}
