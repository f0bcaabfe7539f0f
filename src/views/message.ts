import type { KnownBlock } from '@slack/types';

/** A message body: fallback text for notifications and screen readers, plus the blocks. */
export interface Message {
  text: string;
  blocks?: KnownBlock[];
}
