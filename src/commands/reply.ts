import type { KnownBlock, ModalView } from '@slack/types';
import type { Person } from '../store/sessions.ts';

/** A message body: fallback text for notifications and screen readers, plus the blocks. */
export interface Message {
  text: string;
  blocks?: KnownBlock[];
}

/**
 * What a handler wants shown to the person who acted. Handlers return this as plain data; the
 * Slack adapter alone turns it into `ack`, `respond` and Web API calls.
 */
export type Reply =
  | { kind: 'message'; message: Message; replaceOriginal?: boolean }
  /**
   * Opens `view` at once (a trigger lasts 3 s); with `followUp`, the modal is replaced by what it
   * gives once the slower work behind it is done (a failure shows in its place).
   */
  | { kind: 'openModal'; view: ModalView; followUp?: () => Promise<ModalView> }
  | { kind: 'updateModal'; view: ModalView }
  | { kind: 'pushModal'; view: ModalView }
  | { kind: 'none' };

/** What a modal submission answers with (Slack's `response_action`, or closing the modal). */
export type SubmissionReply =
  | { kind: 'errors'; errors: Record<string, string> }
  | { kind: 'update'; view: ModalView }
  | { kind: 'push'; view: ModalView }
  | { kind: 'close' }
  | { kind: 'clear' };

/** The Slack user behind an interaction, with the place it came from. */
export interface Actor extends Person {
  userName: string;
  channelId: string | undefined;
}

export const message = (text: string, blocks?: KnownBlock[]): Reply => ({ kind: 'message', message: blocks ? { text, blocks } : { text } });

/** A reply that takes the place of the message whose button was clicked. */
export const replacement = (text: string, blocks?: KnownBlock[]): Reply => ({ kind: 'message', message: blocks ? { text, blocks } : { text }, replaceOriginal: true });
