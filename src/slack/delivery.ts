import type { WebClient } from '@slack/web-api';
import type { ModalView } from '@slack/types';
import type { Reply } from '../commands/reply.ts';
import type { Actor } from '../store/sessions.ts';
import type { Message } from '../views/message.ts';
import { messageModal, restartingText } from '../views/notice.ts';
import type { ResponseUrlReply } from './replies.ts';

/** Sends a message to the response_url of the delivery being answered. */
export type Respond = (message: ResponseUrlReply) => Promise<void>;

/** Where a reply goes: the delivery's response_url, the modal it came from, or the person's DM. */
export interface Target {
  client: WebClient;
  respond: Respond | undefined;
  triggerId: string | undefined;
  viewId?: string | undefined;
  actor: Actor;
}

export const restarting: Reply = { kind: 'message', message: { text: restartingText } };

/**
 * Turns a handler's plain reply into Slack calls. A modal's slower follow-up that fails shows its
 * failure in the modal's place, in the words `explain` gives.
 */
export async function deliver(
  reply: Reply,
  target: Target,
  explain: (actor: Actor, error: unknown) => Promise<Message>,
): Promise<void> {
  const { client, respond, triggerId, viewId, actor } = target;
  switch (reply.kind) {
    case 'none':
      return;
    case 'message': {
      const { text, blocks } = reply.message;
      if (respond) {
        await respond({
          text,
          ...(blocks ? { blocks } : {}),
          ...(reply.replaceOriginal !== undefined ? { replaceOriginal: reply.replaceOriginal } : {}),
        });
      } else if (viewId && reply.replaceOriginal) {
        // A button in a modal whose answer replaces what it was on: the modal shows the answer.
        await client.views.update({ view_id: viewId, view: messageModal('Faultline', reply.message) });
      } else if (viewId && triggerId) {
        // An answer to something done inside a modal shows on top of it.
        await client.views.push({ trigger_id: triggerId, view: messageModal('Faultline', reply.message) });
      } else {
        // From App Home: the app's Messages tab is the person's own channel with the bot.
        await client.chat.postMessage({ channel: actor.userId, text, ...(blocks ? { blocks } : {}) });
      }
      return;
    }
    case 'openModal': {
      if (!triggerId) throw new Error('A modal was asked for without a trigger');
      const opened = await client.views.open({ trigger_id: triggerId, view: reply.view });
      if (reply.opened && opened.view?.id) await reply.opened(opened.view.id);
      if (!reply.followUp) return;
      let next: ModalView;
      try {
        next = await reply.followUp();
      } catch (error) {
        next = messageModal(reply.view.title.text, await explain(actor, error));
      }
      await client.views.update({
        view_id: opened.view!.id!,
        ...(opened.view?.hash ? { hash: opened.view.hash } : {}),
        view: next,
      });
      return;
    }
    case 'pushModal':
      if (!triggerId) throw new Error('A modal was asked for without a trigger');
      await client.views.push({ trigger_id: triggerId, view: reply.view });
      return;
    case 'updateModal':
      if (!viewId) throw new Error('A modal update without a view');
      await client.views.update({ view_id: viewId, view: reply.view });
      return;
  }
}
