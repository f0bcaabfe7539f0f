import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeSlack, type FakeSlack, type StepDefinition } from '@faultline/fake-slack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAYGROUND_CHANNELS, PLAYGROUND_PEOPLE } from '../src/directory.ts';
import { stepRuns } from '../src/workflows-panel.ts';

/**
 * The Workflows panel's list of runs over the fake Slack, with a stand-in app that fails each
 * step with the words a test gives it, mentions and all, as the app words a step's error.
 */

const botToken = 'xoxb-workflows-panel-test';
const endGameDay: StepDefinition = {
  title: 'End game day',
  description: "Ends the channel's game day",
  input_parameters: {
    user: { type: 'slack#/types/user_context', title: 'Person', is_required: true },
    channel: { type: 'slack#/types/channel_id', title: 'Channel', is_required: true },
  },
  output_parameters: { game_day_id: { type: 'string', title: 'Game day id', is_required: true } },
};

let fake: FakeSlack;
let app: Server;
let failWith = '';

beforeAll(async () => {
  fake = await startFakeSlack({
    signingSecret: 'workflows-panel-secret',
    botToken,
    steps: { end_game_day: endGameDay },
  });
  app = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.end();
      const event = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event?: Record<string, unknown> }).event;
      if (event?.['type'] !== 'function_executed') return;
      void fetch(`${fake.apiUrl}functions.completeError`, {
        method: 'POST',
        headers: { authorization: `Bearer ${botToken}`, 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ function_execution_id: event['function_execution_id'], error: failWith }),
      });
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', () => resolve()));
  fake.setBotUrl(`http://127.0.0.1:${(app.address() as AddressInfo).port}/slack/events`);
});

afterAll(async () => {
  await fake?.stop();
  await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()));
});

async function failedRun(error: string): Promise<string | undefined> {
  failWith = error;
  const execution = await fake.runStep('end_game_day', { channel: 'C0GAMEDAY' }, { usedBy: 'U0ALICE' });
  await fake.waitFor(() => execution.state === 'failed', 'the step to fail');
  const names = new Map([...PLAYGROUND_PEOPLE, ...PLAYGROUND_CHANNELS].map(({ id, name }) => [id, name]));
  return stepRuns(fake, names).find((run) => run.id === execution.id)?.error;
}

describe('the Workflows panel', () => {
  it("names a step error's channels as Slack shows them, not by id", async () => {
    expect(await failedRun('No game day runs in <#C0GAMEDAY>, so there is nothing to end.')).toBe(
      'No game day runs in #gameday, so there is nothing to end.',
    );
    expect(await failedRun('Attacks cannot be started in <#C0GENERAL>. Use <#C0GAMEDAY|gameday>.')).toBe(
      'Attacks cannot be started in #general. Use #gameday.',
    );
  });

  it('names people as @name, and shows an id nobody here has as it is', async () => {
    expect(await failedRun('<@U0BOB> rejected the attack, so nothing was started.')).toBe(
      '@bob rejected the attack, so nothing was started.',
    );
    expect(await failedRun('No game day runs in <#C0ELSEWHERE>.')).toBe('No game day runs in #C0ELSEWHERE.');
  });
});
