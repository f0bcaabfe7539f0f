import { describe, expect, it } from 'vitest';
import type { AttackRequest } from '../../src/attacks/request.ts';
import { RateLimitedError } from '../../src/client/errors.ts';
import { issueMetaSchema } from '../../src/client/schemas.ts';
import { attackPreviewMessage } from '../../src/views/attacks/attackPreview.ts';
import { describeError } from '../../src/views/errorReply.ts';
import { agree, plural } from '../../src/views/blocks.ts';
import { ticketModal } from '../../src/views/tickets/ticket.ts';
import { issueMeta } from '../support/issue-meta.ts';

describe('plural', () => {
  it('keeps the noun singular for exactly one, plural otherwise, zero included', () => {
    expect(plural(1, 'attack')).toBe('1 attack');
    expect(plural(2, 'attack')).toBe('2 attacks');
    expect(plural(0, 'attack')).toBe('0 attacks');
    expect(plural(1.5, 'second')).toBe('1.5 seconds');
  });

  it('takes an irregular plural as given', () => {
    expect(plural(1, 'was', 'were')).toBe('1 was');
    expect(plural(4, 'was', 'were')).toBe('4 were');
    expect(plural(2, 'more game day')).toBe('2 more game days');
  });

  it('agrees a word alone with a count said elsewhere', () => {
    expect(agree(1, 'does', 'do')).toBe('does');
    expect(agree(3, 'does', 'do')).toBe('do');
    expect(agree(2, 'execution')).toBe('executions');
  });
});

describe('counts in messages agree with their nouns', () => {
  const texts = (blocks: readonly unknown[]) => JSON.stringify(blocks);

  it('a one-second attack is previewed for 1 second', () => {
    const request: AttackRequest = {
      type: 'cpu',
      args: ['-l', '1'],
      target: { kind: 'all' },
      team: undefined,
      yes: false,
      lengthSeconds: 1,
    };
    const { text, blocks } = attackPreviewMessage({
      request,
      teamName: 'Payments',
      pendingId: 'p-1',
      command: '/chaos',
    });
    expect(text).toContain('for 1 second?');
    expect(`${text} ${texts(blocks)}`).not.toContain('1 seconds');
  });

  it('a rate limit of one second asks to try again in 1 second', () => {
    const error = new RateLimitedError({ method: 'GET', path: '/attacks/active', status: 429, retryAfterMs: 1000 });
    expect(describeError(error, { command: '/chaos' }).text).toContain('Try again in 1 second.');
  });

  it('one required field left out of the ticket form is told in the singular', () => {
    const meta = issueMetaSchema.parse({
      ...issueMeta,
      fields: Array.from({ length: 96 }, (_, index) => ({
        key: `customfield_${index}`,
        name: `Field ${index}`,
        required: true,
        type: 'string',
      })),
    });
    const view = ticketModal({ summary: 's', description: 'd', meta, labels: [], privateMetadata: '{}' });
    expect(texts(view.blocks)).toContain(
      '1 more required field does not fit here: the tracker may refuse the ticket without it.',
    );
  });
});
