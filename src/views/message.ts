import type { KnownBlock, MessageMetadata } from '@slack/types';

/** A message body: fallback text for notifications and screen readers, plus the blocks. */
export interface Message {
  text: string;
  blocks?: KnownBlock[];
  /** Message metadata, for other apps to read (the cards carry it). */
  metadata?: MessageMetadata;
}
