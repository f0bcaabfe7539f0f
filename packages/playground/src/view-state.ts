/** A message as the page draws it; replies only on top-level messages. */
export interface MessageState {
  ts: string;
  threadTs?: string;
  ephemeral: boolean;
  /** The fallback text, drawn when a message has no blocks. */
  text: string;
  blocks: unknown[];
  /** Files shared with the message, as Slack shows them: a card with the name, opened by id. */
  files?: FileCard[];
  replies?: MessageState[];
}

export interface FileCard {
  id: string;
  name: string;
  title: string;
}

export interface ModalState {
  viewId: string;
  title: string;
  /** The submit button's label; null when the view has none. */
  submit: string | null;
  close: string;
  blocks: unknown[];
  /** `state.values` as the next submission sends them, by block id and action id. */
  values: Record<string, Record<string, unknown>>;
  /** Field errors by input label. */
  errors: Record<string, string>;
}

/** Everything one person sees in one channel, plus their open modal and App Home tab. */
export interface PersonState {
  person: string;
  channel: string;
  timeline: MessageState[];
  /** The timestamps of the app's direct messages to this person, oldest first: the page counts the unread ones. */
  direct: string[];
  modal: ModalState | null;
  home: { blocks: unknown[] } | null;
}

interface ModalLabels {
  submit: string | null;
  close: string;
}

interface RememberedLabels extends ModalLabels {
  /** Position in the fake's call log when these labels were seen; later views.* calls win. */
  afterCall: number;
}

const VIEW_METHODS = new Set(['views.open', 'views.push', 'views.update']);

function buttonLabel(value: unknown): string | null {
  if (value === null || typeof value !== 'object') return null;
  const text = (value as { text?: unknown }).text;
  return typeof text === 'string' ? text : null;
}

function labelsOf(view: Record<string, unknown>): ModalLabels {
  return { submit: buttonLabel(view['submit']), close: buttonLabel(view['close']) ?? 'Close' };
}

/**
 * The labels of a modal's Submit and Close buttons. The fake's modal driver does not expose them,
 * so they are read from what set the view: the views.* calls in the fake's call log (whose
 * responses carry the view with its id), or a `response_action` body the playground itself
 * submitted, whichever came last.
 */
export class ModalLabelBook {
  private readonly fake: FakeSlack;
  private readonly fromResponseActions = new Map<string, RememberedLabels>();

  constructor(fake: FakeSlack) {
    this.fake = fake;
  }

  /** Notes the view a `response_action: update | push` put on top of the stack. */
  rememberResponseAction(viewId: string, body: unknown): void {
    if (body === null || typeof body !== 'object') return;
    const { response_action: action, view } = body as { response_action?: unknown; view?: unknown };
    if ((action !== 'update' && action !== 'push') || view === null || typeof view !== 'object') return;
    this.fromResponseActions.set(viewId, {
      ...labelsOf(view as Record<string, unknown>),
      afterCall: this.fake.calls.length,
    });
  }

  labels(viewId: string): ModalLabels {
    const remembered = this.fromResponseActions.get(viewId);
    const calls = this.fake.calls;
    for (let index = calls.length - 1; index >= (remembered?.afterCall ?? 0); index -= 1) {
      const call = calls[index];
      if (call === undefined || !call.ok || !VIEW_METHODS.has(call.method)) continue;
      const view = (call.response as { view?: Record<string, unknown> } | undefined)?.view;
      if (view?.['id'] === viewId) return labelsOf(view);
    }
    return remembered ?? { submit: 'Submit', close: 'Cancel' };
  }
}

function messageState(message: Message, files: readonly UploadedFile[] = []): MessageState {
  const shared = files
    .filter((file) => file.channel === message.channel && file.messageTs === message.ts)
    .map(({ id, filename, title }) => ({ id, name: filename, title }));
  return {
    ts: message.ts,
    ...(message.threadTs !== undefined ? { threadTs: message.threadTs } : {}),
    ephemeral: message.ephemeral,
    text: message.fallbackText,
    blocks: message.blocks,
    ...(shared.length > 0 ? { files: shared } : {}),
  };
}

function modalState(modal: ModalDriver, labels: ModalLabelBook): ModalState {
  return {
    viewId: modal.viewId,
    title: modal.title,
    ...labels.labels(modal.viewId),
    blocks: modal.blocks,
    values: modal.values(),
    errors: modal.errors(),
  };
}

/** Slack timestamps sort as numbers; seconds and microseconds compared in turn. */
function byTs(a: { ts: string }, b: { ts: string }): number {
  const [aSeconds = 0, aMicros = 0] = a.ts.split('.').map(Number);
  const [bSeconds = 0, bMicros = 0] = b.ts.split('.').map(Number);
  return aSeconds - bSeconds || aMicros - bMicros;
}

/**
 * The channel as this person sees it: everyone's messages with their threads, and this person's
 * ephemeral messages in line (in their thread when they have one), oldest first. The app's direct
 * messages to the person are the channel named by their user id, as the bot posts them.
 */
export function personState(
  person: SlackPerson,
  channel: string,
  labels: ModalLabelBook,
  files: readonly UploadedFile[] = [],
): PersonState {
  const view = person.channel(channel);
  const ephemerals = person.ephemerals(channel).map((message) => messageState(message));
  const timeline: MessageState[] = view.messages().map((message) => {
    const replies = [
      ...view.thread(message.ts).map((reply) => messageState(reply, files)),
      ...ephemerals.filter((reply) => reply.threadTs === message.ts),
    ].sort(byTs);
    return { ...messageState(message, files), replies };
  });
  const threaded = new Set(timeline.map((message) => message.ts));
  timeline.push(...ephemerals.filter((message) => message.threadTs === undefined || !threaded.has(message.threadTs)));
  timeline.sort(byTs);

  const modal = person.modal();
  const home = person.home();
  return {
    person: person.id,
    channel,
    timeline,
    direct: person
      .channel(person.id)
      .messages()
      .map((message) => message.ts),
    modal: modal === undefined ? null : modalState(modal, labels),
    home: home === undefined ? null : { blocks: home.blocks },
  };
}

import type { FakeSlack, Message, ModalDriver, SlackPerson, UploadedFile } from '@faultline/fake-slack';
