import { messageViolations } from '@faultline/fake-slack/limits';
import type { ActionsBlock, KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { HaltProgress } from '../../src/attacks/haltChecks.ts';
import { attackCardMessage, HALT_AGAIN, HALT_ATTACK, haltCheckText } from '../../src/views/attacks/attackCard.ts';
import { haltStuckMessage } from '../../src/views/attacks/halt.ts';
import { PRESENCE_HERE, presenceClosed, presenceQuestion } from '../../src/views/attacks/presence.ts';
import { startedCard } from '../support/cards.ts';

const card = startedCard({
  guid: 'a1b2c3d4',
  teamId: 'team-1',
  teamName: 'Platform',
  channel: 'C0GENERAL',
  ts: '1.0',
  startedBy: { workspaceId: 'T1', userId: 'U1', userName: 'ann' },
});
const progress = (fields: Partial<HaltProgress>): HaltProgress => ({
  haltedAt: '2026-11-26T10:00:00.000Z',
  stopped: 0,
  total: 3,
  running: [],
  verified: false,
  stuck: false,
  ...fields,
});
const actionIds = (blocks: KnownBlock[] | undefined) =>
  (blocks ?? [])
    .filter((b): b is ActionsBlock => b.type === 'actions')
    .flatMap((b) => b.elements.map((e) => ('action_id' in e ? e.action_id : undefined)));

describe('a halt as its card shows it', () => {
  it('says how many targets stopped, then that the halt is verified', () => {
    expect(haltCheckText(progress({ stopped: 1, running: ['b', 'c'] }))).toContain(
      'Halt sent: 1 of 3 targets stopped so far',
    );
    expect(haltCheckText(progress({ stopped: 3, verified: true }))).toContain(
      '*Halt verified*: 3 of 3 targets stopped',
    );
    expect(haltCheckText(progress({ total: 0, verified: true }))).toContain('no target was reached');
  });

  it('names the targets still running a minute on, and offers Halt again instead of Halt', () => {
    const stuck = {
      ...card,
      stage: 'HaltDistributed',
      lifecycle: 'Halting',
      haltCheck: progress({ stopped: 2, running: ['platform-web-2'], stuck: true }),
    };
    const message = attackCardMessage(stuck);
    expect(JSON.stringify(message.blocks)).toContain('still running a minute after the halt: `platform-web-2`');
    expect(actionIds(message.blocks)).toContain(HALT_AGAIN);
    expect(actionIds(message.blocks)).not.toContain(HALT_ATTACK);
    expect(messageViolations(message.blocks)).toEqual([]);
    // Verified in the end: Halt again goes.
    const verified = attackCardMessage({ ...stuck, haltCheck: progress({ stopped: 3, verified: true }) });
    expect(actionIds(verified.blocks)).not.toContain(HALT_AGAIN);
  });

  it('tells the halter what made the halt, with Halt again', () => {
    const ref = { guid: card.guid, teamId: card.teamId, kind: card.kind };
    const stuck = progress({ stopped: 2, running: ['platform-web-2'] });
    expect(haltStuckMessage(ref, stuck, { type: 'cpu', channel: 'C0GENERAL', cause: 'person' }).text).toContain(
      'Your halt of the *cpu* attack `a1b2c3d4` in <#C0GENERAL>',
    );
    expect(haltStuckMessage(ref, stuck, { cause: 'guard' }).text).toContain(
      'made with your session (your guard fired)',
    );
    const inThread = haltStuckMessage(ref, stuck);
    expect(inThread.text).toMatch(/^:warning: The halt has not stopped every target: 1 target still running/);
    expect(actionIds(inThread.blocks)).toEqual([HALT_AGAIN]);
  });
});

describe('presence checks', () => {
  it('asks with Still here and Halt, and closes without buttons', () => {
    const question = presenceQuestion(card, 15);
    expect(question.text).toContain('Still watching the *cpu* attack `a1b2c3d4`');
    expect(actionIds(question.blocks)).toEqual([PRESENCE_HERE, HALT_ATTACK]);
    expect(messageViolations(question.blocks)).toEqual([]);
    for (const closed of ['here', 'halted', 'ended'] as const)
      expect(actionIds(presenceClosed(card, closed, 15).blocks)).toEqual([]);
    expect(presenceClosed(card, 'here', 15).text).toContain('asked again in 15 minutes');
    expect(presenceClosed(card, 'halted', 15).text).toContain('nobody was watching');
  });

  it('says on the card that nobody was watching', () => {
    const message = attackCardMessage({ ...card, unwatched: { askedOf: 'U9', at: '2026-11-26T10:00:00.000Z' } });
    expect(JSON.stringify(message.blocks)).toContain('Halted: nobody was watching.* <@U9> did not answer');
  });
});
