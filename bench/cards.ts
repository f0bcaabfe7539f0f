/**
 * Card updates under Slack's chat.update limit (about 50 a minute): 1,000 live cards change in one
 * poll pass, 50 of them because their attack finished (or was halted), the rest only moved on a
 * stage. How long until the last finished attack's card shows it, when updates go in order of
 * importance (urgent first, src/slack/messenger.ts) against the order they were queued.
 *
 * The queue runs at a scaled-down pace (SCALE times faster than Slack's) against a stand-in
 * chat.update that records when each update left, so the run takes seconds; the times printed
 * are scaled back to Slack's pace.
 */
import { Writable } from 'node:stream';
import type { WebClient } from '@slack/web-api';
import { createLogger } from '../src/logger.ts';
import { Messenger, type UpdatePriority } from '../src/slack/messenger.ts';
import { printTable, type SummaryRow } from './table.ts';

const cards = 1_000;
const finished = 50;
const updatesPerMinute = 50;
const burst = 10;
/** 50 a minute becomes 50 every 200 ms: a timer late by 1 ms shows as 0.3 s. */
const scale = 300;

const seconds = (ms: number) => (ms < 120_000 ? `${(ms / 1000).toFixed(0)} s` : `${(ms / 60_000).toFixed(1)} min`);

/** Which cards finished: spread over the pass by a fixed stride, as a poll meets them team by team. */
const finishedAt = new Set(Array.from({ length: finished }, (_, i) => Math.floor(((i + 0.5) * cards) / finished)));

async function run(prioritised: boolean): Promise<{ lastFinishedMs: number; meanFinishedMs: number; allMs: number }> {
  const sentAt = new Map<string, number>();
  let started = 0;
  const stand = {
    chat: { update: async (args: { ts: string }) => void sentAt.set(args.ts, performance.now() - started) },
  } as unknown as WebClient;
  const messenger = new Messenger(
    { calls: stand, cardUpdates: stand },
    createLogger('silent', new Writable({ write: (_c, _e, done) => done() })),
    {
      updatesPerMinute: updatesPerMinute * scale,
      updateBurst: burst,
    },
  );
  started = performance.now();
  for (let i = 0; i < cards; i++) {
    const done = finishedAt.has(i);
    const priority: UpdatePriority = prioritised && done ? 'urgent' : 'routine';
    messenger.update('C0CARDS', `card-${i}`, { text: done ? 'finished' : 'stage 2' }, priority);
  }
  await messenger.flush();
  const finishedTimes = [...finishedAt].map((i) => sentAt.get(`card-${i}`)! * scale);
  return {
    lastFinishedMs: Math.max(...finishedTimes),
    meanFinishedMs: finishedTimes.reduce((sum, ms) => sum + ms, 0) / finishedTimes.length,
    allMs: Math.max(...sentAt.values()) * scale,
  };
}

export async function cardsBenchmark(): Promise<SummaryRow[]> {
  const arrival = await run(false);
  const priority = await run(true);
  printTable(
    `${cards} cards changing in one pass, ${finished} of them finished or halted, chat.update at ${updatesPerMinute}/min (burst ${burst}); run ${scale}× faster, times scaled back`,
    ['order', 'last finished card shows it', 'finished cards, mean', 'every card updated'],
    [
      [
        'arrival (first queued first)',
        seconds(arrival.lastFinishedMs),
        seconds(arrival.meanFinishedMs),
        seconds(arrival.allMs),
      ],
      [
        'priority (halts and finished first)',
        seconds(priority.lastFinishedMs),
        seconds(priority.meanFinishedMs),
        seconds(priority.allMs),
      ],
    ],
  );
  return [
    {
      benchmark: 'cards',
      figure: `last of ${finished} finished cards updated, of ${cards} changing, halts and finished first`,
      value: priority.lastFinishedMs / 1000,
      unit: 's',
    },
    {
      benchmark: 'cards',
      figure: `last of ${finished} finished cards updated, of ${cards} changing, in arrival order`,
      value: arrival.lastFinishedMs / 1000,
      unit: 's',
    },
  ];
}
