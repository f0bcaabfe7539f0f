import type { CardRecord } from '../../src/attacks/cards.ts';

/** What sets one card apart in a test or a bench; the rest is a fresh start's. */
export type CardFields = Pick<CardRecord, 'guid' | 'teamId' | 'teamName' | 'channel' | 'ts' | 'startedBy'> &
  Partial<CardRecord>;

/** A card as a start posts it: an hour's cpu attack on every active client, at its first stage. */
export function startedCard(fields: CardFields): CardRecord {
  return {
    kind: 'attack',
    type: 'cpu',
    args: ['-l', '3600'],
    targetWords: 'every active client',
    startedByPlatform: undefined,
    stage: 'Pending',
    lifecycle: 'Active',
    totalClients: undefined,
    createdAt: new Date().toISOString(),
    startTime: undefined,
    endTime: undefined,
    lengthSeconds: 3600,
    annotations: {},
    haltedBy: [],
    ...fields,
  };
}
