import type { BotResponse, ModalDriver, OptionInfo, SlackPerson, Surface } from '@faultline/fake-slack';
import { z } from 'zod';
import type { ModalLabelBook } from './view-state.ts';

/** A request the playground refuses, with the words the page shows and the HTTP status. */
export class PlaygroundError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'PlaygroundError';
    this.status = status;
  }
}

/** Where a button or select sits, as the page names it. */
export const surfaceRef = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('message'), channel: z.string(), ts: z.string(), threadTs: z.string().optional() }),
  z.object({ kind: z.literal('modal'), viewId: z.string() }),
  z.object({ kind: z.literal('home') }),
]);
export type SurfaceRef = z.infer<typeof surfaceRef>;

/** What is typed into one input of a modal, named as Slack keeps it: by block id and action id. */
export const fieldValue = z.object({ blockId: z.string(), actionId: z.string(), value: z.string() });
export type FieldValue = z.infer<typeof fieldValue>;

/** The modal on top of the person's stack, if it is still the one the page showed. */
export function currentModal(person: SlackPerson, viewId: string): ModalDriver {
  const modal = person.modal();
  if (modal === undefined || modal.viewId !== viewId) throw new PlaygroundError(409, 'That dialog is no longer open.');
  return modal;
}

function findSurface(person: SlackPerson, ref: SurfaceRef): Surface {
  switch (ref.kind) {
    case 'modal':
      return currentModal(person, ref.viewId);
    case 'home': {
      const home = person.home();
      if (home === undefined) throw new PlaygroundError(409, 'The app has not published a Home tab.');
      return home;
    }
    case 'message': {
      const channel = person.channel(ref.channel);
      const candidates = [
        ...person.ephemerals(ref.channel),
        ...(ref.threadTs !== undefined ? channel.thread(ref.threadTs) : channel.messages()),
      ];
      const message = candidates.find((candidate) => candidate.ts === ref.ts);
      if (message === undefined) throw new PlaygroundError(409, 'That message is gone.');
      return message;
    }
  }
}

/** Fails when the app did not take the request as Slack expects (a 200 within its deadline). */
function expectAck(response: BotResponse | undefined): void {
  if (response !== undefined && response.status !== 200) {
    throw new PlaygroundError(502, `The app answered with HTTP ${response.status}; its log says why.`);
  }
}

/** Clicks the button at `index` among the surface's buttons, if it is still the one the page showed. */
export async function clickButton(
  person: SlackPerson,
  ref: SurfaceRef,
  index: number,
  actionId: string,
  confirmed: boolean,
): Promise<void> {
  const surface = findSurface(person, ref);
  const buttons = surface.buttons();
  const button = buttons[index];
  if (button === undefined || button.actionId !== actionId)
    throw new PlaygroundError(409, 'That button is no longer there.');
  // Several buttons may share a text (a Halt on each row of a list): press this one of them.
  const sameText = buttons.slice(0, index).filter((candidate) => candidate.text === button.text).length;
  expectAck(await surface.click(button.text, { confirm: confirmed, index: sameText }));
}

function inputBlock(blocks: readonly unknown[], label: string): { dispatch_action?: boolean } | undefined {
  const wanted = label.replace(/\s+/g, ' ').trim();
  return blocks.find((block): block is { dispatch_action?: boolean } => {
    const candidate = block as { type?: string; label?: { text?: string } };
    return candidate.type === 'input' && (candidate.label?.text ?? '').replace(/\s+/g, ' ').trim() === wanted;
  });
}

/**
 * Picks an option (for channel and people selects, an id), or with `remove` takes one off a
 * multi-select. In a modal's input block without dispatch_action Slack only keeps the choice
 * (after a search, for an external select); anywhere else it also tells the app.
 */
export async function chooseOption(
  person: SlackPerson,
  ref: SurfaceRef,
  label: string,
  option: string,
  remove = false,
  fields: readonly FieldValue[] = [],
): Promise<void> {
  if (ref.kind === 'modal') {
    const modal = currentModal(person, ref.viewId);
    // What the person typed goes with the choice, as in Slack's block_actions.
    fillFields(modal, fields);
    if (remove) {
      modal.unchoose(label, option);
      return;
    }
    if (inputBlock(modal.blocks, label)?.dispatch_action !== true) {
      modal.choose(label, option);
      return;
    }
  }
  if (remove) throw new PlaygroundError(400, "Only a dialog's multi-selects let you take a choice off.");
  expectAck(await findSurface(person, ref).select(label, option));
}

export function searchOptions(
  person: SlackPerson,
  viewId: string,
  label: string,
  query: string,
): Promise<OptionInfo[]> {
  return currentModal(person, viewId).search(label, query);
}

/** Types each value into its input, as a person does before pressing Submit. */
export function fillFields(modal: ModalDriver, fields: readonly FieldValue[]): void {
  for (const { blockId, actionId, value } of fields) modal.fill({ blockId, actionId }, value);
}

export async function submitModal(
  person: SlackPerson,
  viewId: string,
  fields: readonly FieldValue[],
  labels: ModalLabelBook,
): Promise<void> {
  const modal = currentModal(person, viewId);
  fillFields(modal, fields);
  const response = await modal.submit();
  expectAck(response);
  const top = person.modal();
  if (top !== undefined) labels.rememberResponseAction(top.viewId, response.body);
}

export async function closeModal(person: SlackPerson, viewId: string): Promise<void> {
  expectAck(await currentModal(person, viewId).close());
}

export async function runCommand(person: SlackPerson, channel: string, text: string): Promise<void> {
  expectAck(await person.command(text, { channel }));
}

export async function openHome(person: SlackPerson): Promise<void> {
  expectAck(await person.openHome());
}

/** A message shortcut from a message's menu, as Slack sends it: the callback id and the message. */
export async function runShortcut(person: SlackPerson, callbackId: string, channel: string, ts: string): Promise<void> {
  expectAck(await person.shortcut(callbackId, { channel, ts }));
}
