import type { MessageRef } from '../attacks/cards.ts';
import type { ApprovalBoard, ApprovalClosing, ApprovalRequest } from '../guardrails/approvals.ts';
import { approvalClosedMessage, approvalRequestMessage } from '../views/guardrails/approval.ts';
import type { Messenger } from './messenger.ts';

/** Requests for a second person, in the attack's channel. */
export class SlackApprovalBoard implements ApprovalBoard {
  readonly #messenger: Pick<Messenger, 'post' | 'update'>;
  readonly #command: string;

  /** `command` is the slash command, for what a failed start says to run. */
  constructor(messenger: Pick<Messenger, 'post' | 'update'>, options: { command: string }) {
    this.#messenger = messenger;
    this.#command = options.command;
  }

  post(request: ApprovalRequest): Promise<MessageRef> {
    return this.#messenger.post(request.pending.channel, approvalRequestMessage(request));
  }

  close(at: MessageRef, closing: ApprovalClosing): void {
    this.#messenger.update(at.channel, at.ts, approvalClosedMessage(closing, this.#command), 'urgent');
  }
}
