import type { Freeze } from '../guardrails/freezes.ts';
import type { FreezeNotice, FreezeNotices } from '../guardrails/sweep.ts';
import { freezeNoticeText } from '../views/guardrails/freeze.ts';
import type { Messenger } from './messenger.ts';

/** A freeze's notices, in the channel where it was declared. */
export class SlackFreezeNotices implements FreezeNotices {
  readonly #messenger: Pick<Messenger, 'post'>;
  readonly #command: string;

  /** `command` is the slash command, for the way out each notice names. */
  constructor(messenger: Pick<Messenger, 'post'>, options: { command: string }) {
    this.#messenger = messenger;
    this.#command = options.command;
  }

  async tell(freeze: Freeze & { channel: string }, notice: FreezeNotice): Promise<void> {
    await this.#messenger.post(freeze.channel, { text: freezeNoticeText(freeze, notice, this.#command) });
  }
}
