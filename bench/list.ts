/**
 * `/chaos list` with 10,000 active attacks in the team: the first page should come from the paged
 * endpoint without reading the rest. The baseline is what a naive list would have to do first:
 * read all 10,000 from the unpaged GET /attacks/active.
 */
import type { RecordedRequest } from '@faultline/platform-sim';
import { Agent } from 'undici';
import { listPageSize } from '../src/views/attacks/attackList.ts';
import { Stack } from '../test/e2e/harness.ts';
import { median } from './stats.ts';
import { formatBytes, formatMs, formatRatio, printTable, type SummaryRow } from './table.ts';

const attackCount = 10_000;
const runs = 5;
const channel = 'C0GENERAL';
const personId = 'U0BENCHLIST';

interface Read {
  ms: number;
  bytes: number;
  items: number;
}

/** Reads an endpoint as the bot would, without the client, to count what crosses the wire. */
async function rawRead(
  agent: Agent,
  baseUrl: string,
  header: string,
  path: string,
  query: RecordedRequest['query'],
): Promise<Read> {
  const base = new URL(baseUrl);
  const search = new URLSearchParams(
    Object.entries(query).flatMap(([key, value]) =>
      (Array.isArray(value) ? value : [value]).map((each): [string, string] => [key, each]),
    ),
  );
  const started = performance.now();
  const response = await agent.request({
    origin: base.origin,
    path: `${base.pathname}${path}?${search}`,
    method: 'GET',
    headers: { authorization: header },
  });
  const text = await response.body.text();
  const ms = performance.now() - started;
  if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}`);
  const body = JSON.parse(text) as unknown[] | { items: unknown[] };
  return { ms, bytes: Buffer.byteLength(text), items: Array.isArray(body) ? body.length : body.items.length };
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

/** Runs `work` once to warm up, then `runs` times; the median time and the last result. */
async function repeated<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  await work();
  const results: { ms: number; value: T }[] = [];
  for (let run = 0; run < runs; run++) results.push(await timed(work));
  return { ms: median(results.map((result) => result.ms)), value: results.at(-1)!.value };
}

export async function listBenchmark(): Promise<SummaryRow[]> {
  const stack = await Stack.start();
  const agent = new Agent({ connect: { ca: stack.sim.ca } });
  try {
    const { sim } = stack;
    const team = sim.seed.teams.platform;
    await stack.login(personId, sim.seed.users.owner, { team: team.name });
    const guids = new Set(sim.addAttacks(team.id, attackCount));
    const header = (await stack.built.sessions.get({ workspaceId: stack.fake.teamId, userId: personId }))!.session
      .header;
    const api = stack.built.platform.as({ header, teamId: team.id });

    // The bot, end to end: the command delivered until its reply is at the fake Slack.
    const bot = await repeated(async () => {
      const mark = sim.requests.length;
      const reply = await stack.ask(personId, 'list', { channel });
      return {
        calls: sim.requests.slice(mark),
        shown: reply.buttons().filter((button) => button.text === 'Halt').length,
      };
    });
    const { calls, shown } = bot.value;
    const pageCall = calls.find((call) => call.path === '/attacks/active/paged');
    const listed = [...guids].filter((guid) => stack.person(personId).lastEphemeral()?.text().includes(guid)).length;
    const botPage = pageCall
      ? await rawRead(agent, sim.url, header, pageCall.path, pageCall.query)
      : { ms: Number.NaN, bytes: 0, items: 0 };

    const pageRaw = await repeated(() =>
      rawRead(agent, sim.url, header, '/attacks/active/paged', { pageSize: String(listPageSize), teamId: team.id }),
    );
    const pageClient = await repeated(() => api.attacks.activePage({ pageSize: listPageSize }));
    const allRaw = await repeated(() => rawRead(agent, sim.url, header, '/attacks/active', { teamId: team.id }));
    const allClient = await repeated(() => api.attacks.listActive());

    const callWords =
      calls
        .map(
          (call) =>
            `${call.method} ${call.path}${call.query['pageSize'] ? ` pageSize=${String(call.query['pageSize'])}` : ''}`,
        )
        .join(', ') || 'none';
    printTable(
      `Listing ${attackCount.toLocaleString('en')} active attacks of one team · median of ${runs} after a warm-up`,
      ['read', 'platform calls', 'items read', 'bytes read', 'time'],
      [
        [
          `Faultline /chaos list, page 1 (command to reply at Slack; ${shown} Halt buttons)`,
          callWords,
          String(botPage.items),
          formatBytes(botPage.bytes),
          formatMs(bot.ms),
        ],
        [
          '  that page alone, over HTTPS',
          '1',
          String(pageRaw.value.items),
          formatBytes(pageRaw.value.bytes),
          formatMs(pageRaw.ms),
        ],
        [
          '  that page through the platform client (parse, validate)',
          '1',
          String(pageClient.value.items.length),
          '',
          formatMs(pageClient.ms),
        ],
        [
          'naive: GET /attacks/active, everything, over HTTPS',
          '1',
          String(allRaw.value.items),
          formatBytes(allRaw.value.bytes),
          formatMs(allRaw.ms),
        ],
        [
          'naive: the same through the platform client (parse, validate)',
          '1',
          String(allClient.value.length),
          '',
          formatMs(allClient.ms),
        ],
      ],
    );
    printTable(
      'Naive read against the paged first page',
      ['figure', 'ratio'],
      [
        ['bytes: all / page 1', formatRatio(allRaw.value.bytes / botPage.bytes)],
        ['time over HTTPS: all / page 1', formatRatio(allRaw.ms / pageRaw.ms)],
        ['time through the client: all / page 1', formatRatio(allClient.ms / pageClient.ms)],
        ["naive read alone / Faultline's whole answer", formatRatio(allClient.ms / bot.ms)],
      ],
    );
    if (listed !== listPageSize)
      console.log(`Note: the reply showed ${listed} of the team's attacks, not ${listPageSize}.`);

    return [
      {
        benchmark: 'list',
        figure: `/chaos list page 1 over ${attackCount.toLocaleString('en')} active, command to reply`,
        value: bot.ms,
        unit: 'ms',
      },
      {
        benchmark: 'list',
        figure: 'platform calls for page 1',
        value: calls.length,
        unit: 'calls',
        target: '1 (paged)',
        met: calls.length === 1,
      },
      {
        benchmark: 'list',
        figure: 'attacks read for page 1',
        value: botPage.items,
        unit: 'attacks',
        target: String(listPageSize),
        met: botPage.items === listPageSize,
      },
      {
        benchmark: 'list',
        figure: `naive read of all ${attackCount.toLocaleString('en')} (client), time`,
        value: allClient.ms,
        unit: 'ms',
      },
      {
        benchmark: 'list',
        figure: `naive read of all ${attackCount.toLocaleString('en')}, bytes`,
        value: allRaw.value.bytes / 1024 ** 2,
        unit: 'MiB',
      },
      {
        benchmark: 'list',
        figure: 'naive read / paged page 1, time (client)',
        value: allClient.ms / pageClient.ms,
        unit: '×',
      },
      {
        benchmark: 'list',
        figure: 'naive read / paged page 1, bytes',
        value: allRaw.value.bytes / botPage.bytes,
        unit: '×',
      },
    ];
  } finally {
    await agent.close();
    await stack.stop();
  }
}
