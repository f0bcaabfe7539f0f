import type { KnownBlock, MessageMetadata } from '@slack/types';
import { section } from './blocks.ts';

/** A message body: fallback text for notifications and screen readers, plus the blocks. */
export interface Message {
  text: string;
  blocks?: KnownBlock[];
  /** Message metadata, for other apps to read (the cards carry it). */
  metadata?: MessageMetadata;
}

/** A message's blocks, or its text as one section, for a surface that shows it in place (a modal, Home). */
export const messageBlocks = (message: Message): KnownBlock[] => message.blocks ?? [section(message.text)];

/** A message that is one section of mrkdwn, its text the same words. */
export const textMessage = (text: string): Message => ({ text, blocks: [section(text)] });
