import type { ModalView } from '@slack/types';
import { context, modal, section } from './blocks.ts';

/** A modal that says work is under way; the handler replaces it when the work is done. */
export function loadingModal(title: string): ModalView {
  return modal('loading', title, [section(':hourglass_flowing_sand: Reading the platform…'), context('This takes a moment.')]);
}

/** A modal with one message and a Close button. */
export function noticeModal(title: string, text: string): ModalView {
  return modal('notice', title, [section(text)], { close: 'Close' });
}
