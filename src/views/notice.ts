import type { ModalView } from '@slack/types';
import { type Message, messageBlocks } from './message.ts';
import { context, modal, section } from './blocks.ts';

/** What a person is told when they act while Faultline is stopping: nothing was done, ask again. */
export const restartingText = 'Faultline is restarting, try again in a moment.';

/** A modal that says work is under way; the handler replaces it when the work is done. */
export function loadingModal(title: string): ModalView {
  return modal('loading', title, [
    section(':hourglass_flowing_sand: Reading the platform…'),
    context('This takes a moment.'),
  ]);
}

/** A modal with one message and a Close button. */
export function noticeModal(title: string, text: string): ModalView {
  return modal('notice', title, [section(text)], { close: 'Close' });
}

/** A message (its blocks, or its text) shown as a modal, e.g. an error inside a modal flow. */
export function messageModal(title: string, message: Message): ModalView {
  return modal('notice', title, messageBlocks(message), { close: 'Close' });
}
