import { isObject, type Block, type BlockElement, type TextObject } from './block-kit.ts';

/** One thing Slack would reject, located by a JSON pointer into the request as Slack reports it. */
export interface Violation {
  pointer: string;
  message: string;
}

export const MAX_MESSAGE_BLOCKS = 50;
export const MAX_VIEW_BLOCKS = 100;
export const MAX_MODAL_TITLE = 24;
export const MAX_SECTION_TEXT = 3000;
export const MAX_ID_LENGTH = 255;
export const MAX_SELECT_OPTIONS = 100;
export const MAX_MODAL_STACK = 3;

/** Slack's `response_metadata.messages` lines for a rejected request. */
export function slackMessages(violations: Violation[]): string[] {
  return violations.map(({ message, pointer }) => `[ERROR] ${message} [json-pointer:${pointer}]`);
}

/** What Slack rejects in the `blocks` of a message (chat.* methods and response_url replies). */
export function messageViolations(blocks: unknown, pointer = '/blocks'): Violation[] {
  if (blocks === undefined) return [];
  return blockListViolations(blocks, pointer, MAX_MESSAGE_BLOCKS);
}

/** What Slack rejects in a view (views.open/push/update/publish and response_action views). */
export function viewViolations(view: unknown, pointer = '/view'): Violation[] {
  if (!isObject(view)) return [{ pointer, message: 'must be an object' }];
  const violations: Violation[] = [];
  const type = view['type'];
  if (type !== 'modal' && type !== 'home') {
    violations.push({ pointer: `${pointer}/type`, message: 'must be one of "modal" or "home"' });
  }
  if (type === 'modal') {
    const title = view['title'];
    if (!isPlainText(title)) {
      violations.push({ pointer: `${pointer}/title`, message: 'must provide a plain_text title' });
    } else if (title.text.length > MAX_MODAL_TITLE) {
      violations.push({ pointer: `${pointer}/title`, message: `must be less than ${MAX_MODAL_TITLE + 1} characters` });
    }
    for (const button of ['submit', 'close'] as const) {
      const text = view[button];
      if (text !== undefined && isPlainText(text) && text.text.length > MAX_MODAL_TITLE) {
        violations.push({
          pointer: `${pointer}/${button}`,
          message: `must be less than ${MAX_MODAL_TITLE + 1} characters`,
        });
      }
    }
    const blocks = Array.isArray(view['blocks']) ? (view['blocks'] as Block[]) : [];
    const firstInput = blocks.findIndex((block) => isObject(block) && block.type === 'input');
    if (firstInput >= 0 && view['submit'] === undefined) {
      violations.push({
        pointer: `${pointer}/blocks/${firstInput}`,
        message: 'must define submit to use an input block in modals',
      });
    }
  }
  for (const field of ['callback_id', 'external_id'] as const) {
    const value = view[field];
    if (typeof value === 'string' && value.length > MAX_ID_LENGTH) {
      violations.push({ pointer: `${pointer}/${field}`, message: `must be less than ${MAX_ID_LENGTH + 1} characters` });
    }
  }
  const metadata = view['private_metadata'];
  if (typeof metadata === 'string' && metadata.length > 3000) {
    violations.push({ pointer: `${pointer}/private_metadata`, message: 'must be less than 3001 characters' });
  }
  violations.push(...blockListViolations(view['blocks'], `${pointer}/blocks`, MAX_VIEW_BLOCKS));
  return violations;
}

function blockListViolations(blocks: unknown, pointer: string, maxBlocks: number): Violation[] {
  if (!Array.isArray(blocks)) return [{ pointer, message: 'must be an array' }];
  const violations: Violation[] = [];
  if (blocks.length > maxBlocks) {
    violations.push({ pointer, message: `no more than ${maxBlocks} items allowed` });
  }
  const blockIds = new Set<string>();
  blocks.forEach((block: unknown, index) => {
    const at = `${pointer}/${index}`;
    if (!isObject(block) || typeof block['type'] !== 'string') {
      violations.push({ pointer: at, message: 'must be a block object with a type' });
      return;
    }
    violations.push(...blockViolations(block as Block, at));
    const blockId = block['block_id'];
    if (typeof blockId === 'string') {
      if (blockIds.has(blockId))
        violations.push({ pointer: `${at}/block_id`, message: `duplicate block_id "${blockId}"` });
      blockIds.add(blockId);
    }
  });
  return violations;
}

function blockViolations(block: Block, at: string): Violation[] {
  const violations: Violation[] = [];
  const tooLong = (value: unknown, max: number, pointer: string) => {
    if (typeof value === 'string' && value.length > max) {
      violations.push({ pointer, message: `must be less than ${max + 1} characters` });
    }
  };
  tooLong(block.block_id, MAX_ID_LENGTH, `${at}/block_id`);
  switch (block.type) {
    case 'section':
      if (block.text === undefined && block.fields === undefined) {
        violations.push({ pointer: at, message: 'must provide either text or fields' });
      }
      tooLong(block.text?.text, MAX_SECTION_TEXT, `${at}/text`);
      if (Array.isArray(block.fields)) {
        if (block.fields.length > 10)
          violations.push({ pointer: `${at}/fields`, message: 'no more than 10 items allowed' });
        block.fields.forEach((field: TextObject, index) => tooLong(field?.text, 2000, `${at}/fields/${index}`));
      }
      break;
    case 'header':
      tooLong(block.text?.text, 150, `${at}/text`);
      break;
    case 'input':
      if (!isPlainText(block.label))
        violations.push({ pointer: `${at}/label`, message: 'must provide a plain_text label' });
      if (!isObject(block.element)) violations.push({ pointer: `${at}/element`, message: 'must provide an element' });
      break;
    default:
      break;
  }
  const elements: [BlockElement, string][] = [];
  if (isObject(block.accessory)) elements.push([block.accessory, `${at}/accessory`]);
  if (isObject(block.element)) elements.push([block.element, `${at}/element`]);
  if (block.type === 'actions' && Array.isArray(block.elements)) {
    block.elements.forEach(
      (element, index) => isObject(element) && elements.push([element, `${at}/elements/${index}`]),
    );
  }
  const actionIds = new Set<string>();
  for (const [element, pointer] of elements) {
    violations.push(...elementViolations(element, pointer));
    if (typeof element.action_id === 'string') {
      if (actionIds.has(element.action_id)) {
        violations.push({ pointer: `${pointer}/action_id`, message: `duplicate action_id "${element.action_id}"` });
      }
      actionIds.add(element.action_id);
    }
  }
  return violations;
}

function elementViolations(element: BlockElement, at: string): Violation[] {
  const violations: Violation[] = [];
  if (typeof element.action_id === 'string' && element.action_id.length > MAX_ID_LENGTH) {
    violations.push({ pointer: `${at}/action_id`, message: `must be less than ${MAX_ID_LENGTH + 1} characters` });
  }
  if (element.type === 'button') {
    if ((element.text?.text?.length ?? 0) > 75)
      violations.push({ pointer: `${at}/text`, message: 'must be less than 76 characters' });
    if ((element.value?.length ?? 0) > 2000)
      violations.push({ pointer: `${at}/value`, message: 'must be less than 2001 characters' });
  }
  if (Array.isArray(element.options) && element.options.length > MAX_SELECT_OPTIONS) {
    violations.push({ pointer: `${at}/options`, message: `no more than ${MAX_SELECT_OPTIONS} items allowed` });
  }
  if (Array.isArray(element.option_groups)) {
    if (element.option_groups.length > MAX_SELECT_OPTIONS) {
      violations.push({ pointer: `${at}/option_groups`, message: `no more than ${MAX_SELECT_OPTIONS} items allowed` });
    }
    element.option_groups.forEach((group, index) => {
      if (Array.isArray(group?.options) && group.options.length > MAX_SELECT_OPTIONS) {
        violations.push({
          pointer: `${at}/option_groups/${index}/options`,
          message: `no more than ${MAX_SELECT_OPTIONS} items allowed`,
        });
      }
    });
  }
  return violations;
}

/**
 * What Slack rejects in the ack body to a view_submission: errors for blocks that are not inputs,
 * invalid views to update or push, a push beyond the stack limit, unknown actions.
 */
export function responseActionViolations(
  reply: Record<string, unknown>,
  inputBlockIds: Set<string>,
  stackDepth: number,
): Violation[] {
  const action = reply['response_action'];
  switch (action) {
    case 'errors': {
      const errors = reply['errors'];
      if (!isObject(errors)) return [{ pointer: '/errors', message: 'must be an object keyed by block_id' }];
      return Object.keys(errors)
        .filter((blockId) => !inputBlockIds.has(blockId))
        .map((blockId) => ({ pointer: `/errors/${blockId}`, message: `no input block with block_id "${blockId}"` }));
    }
    case 'push':
      if (stackDepth >= MAX_MODAL_STACK)
        return [{ pointer: '/response_action', message: `no more than ${MAX_MODAL_STACK} views in a stack` }];
      return viewViolations(reply['view']);
    case 'update':
      return viewViolations(reply['view']);
    case 'clear':
      return [];
    default:
      return [{ pointer: '/response_action', message: `unknown response_action ${JSON.stringify(action)}` }];
  }
}

/** What Slack rejects in the options an app returns for a `block_suggestion`. */
export function optionsResponseViolations(body: unknown): Violation[] {
  if (!isObject(body)) return [{ pointer: '/', message: 'must be an object with options or option_groups' }];
  const options = body['options'];
  const groups = body['option_groups'];
  if (Array.isArray(options)) {
    return options.length > MAX_SELECT_OPTIONS
      ? [{ pointer: '/options', message: `no more than ${MAX_SELECT_OPTIONS} items allowed` }]
      : [];
  }
  if (Array.isArray(groups)) {
    return elementViolations({ option_groups: groups }, '');
  }
  return [{ pointer: '/', message: 'must provide options or option_groups' }];
}

function isPlainText(value: unknown): value is { type: 'plain_text'; text: string } {
  return isObject(value) && value['type'] === 'plain_text' && typeof value['text'] === 'string';
}
