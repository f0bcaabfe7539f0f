import type { App } from '@slack/bolt';
import type { KnownBlock, ModalView } from '@slack/types';
import type { SubmissionReply } from '../commands/command.ts';
import { modal, section } from '../views/blocks.ts';
import { messageModal, noticeModal, restartingText } from '../views/notice.ts';
import type { Listeners, SlackAdapter } from './adapter.ts';
import { actorFrom, readInputs } from './interactions.ts';

/**
 * Slack gives a view submission 3 s, counted at Slack: past this the modal is told to wait and
 * is updated later. The rest of the 3 s is for the network both ways and a busy event loop.
 */
const submissionDeadlineMs = 2_000;

/**
 * Modal submissions: answered in the ack when the handler is quick enough, else the modal says
 * it is working and the outcome takes its place later. A failure shows in the modal, in words.
 */
export function listenToSubmissions(app: App, adapter: SlackAdapter, listeners: Listeners): void {
  const { deps } = adapter;
  for (const [callbackId, handler] of Object.entries(listeners.views)) {
    app.view(callbackId, async ({ ack, body, view, client }) => {
      await adapter.track(
        'view',
        async () => {
          const actor = actorFrom(body);
          const submitted = {
            actor,
            viewId: view.id,
            inputs: readInputs(view.state.values),
            privateMetadata: view.private_metadata ?? '',
          };
          const work = (async (): Promise<SubmissionReply> => {
            try {
              return await adapter.run(handler, `${view.id}:${view.hash}`, (run) => run(submitted, deps), {
                // A submission sent again closes the form, as one that changed nothing does.
                none: { kind: 'close' },
                refused: (reply) => reply.kind === 'errors',
              });
            } catch (error) {
              return { kind: 'update', view: messageModal('Faultline', await adapter.explain(actor, error)) };
            }
          })();
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<'late'>((resolve) => {
            timer = setTimeout(() => resolve('late'), submissionDeadlineMs);
          });
          const first = await Promise.race([work, late]);
          clearTimeout(timer);
          const refresh = async () => {
            if (listeners.refreshHome && listeners.refreshHomeAfterViews?.includes(callbackId))
              await listeners.refreshHome(actor, deps);
          };
          if (first !== 'late') {
            await ack(responseAction(first) as never);
            // Field errors changed nothing, so App Home has nothing new to show.
            if (first.kind !== 'errors') await refresh();
            return;
          }
          // Too slow for Slack's deadline: say so in the modal, then put the outcome in its place.
          await ack({
            response_action: 'update',
            view: modal(callbackId, view.title.text, [section(':hourglass_flowing_sand: Working on it…')]),
          });
          const outcome = await work;
          const next =
            outcome.kind === 'update' || outcome.kind === 'push'
              ? outcome.view
              : outcome.kind === 'errors'
                ? withNotice(view, Object.values(outcome.errors).join(' '))
                : modal(callbackId, view.title.text, [section(':white_check_mark: Done.')]);
          await client.views.update({ view_id: view.id, view: next });
          await refresh();
        },
        () => ack({ response_action: 'update', view: noticeModal(view.title.text, restartingText) }),
      );
    });
  }
}

function responseAction(reply: SubmissionReply): object | undefined {
  switch (reply.kind) {
    case 'errors':
      return { response_action: 'errors', errors: reply.errors };
    case 'update':
      return { response_action: 'update', view: reply.view };
    case 'push':
      return { response_action: 'push', view: reply.view };
    case 'clear':
      return { response_action: 'clear' };
    case 'close':
      return undefined;
  }
}

/** The submitted view again, with a notice on top: how late field errors are shown. */
function withNotice(
  view: {
    callback_id: string;
    title: { text: string };
    blocks: unknown[];
    private_metadata?: string;
    submit?: { text: string } | null;
  },
  notice: string,
): ModalView {
  return modal(view.callback_id, view.title.text, [section(`:warning: ${notice}`), ...(view.blocks as KnownBlock[])], {
    ...(view.submit ? { submit: view.submit.text } : {}),
    ...(view.private_metadata ? { privateMetadata: view.private_metadata } : {}),
  });
}
