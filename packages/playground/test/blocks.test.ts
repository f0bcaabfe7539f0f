import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DRAWN_BLOCKS, DRAWN_ELEMENTS } from '../src/public/blocks.js';

/**
 * The page stands in for Slack, so it must draw every Block Kit block and element the bot can
 * send: a type the bot starts using and the page does not draw fails here, before a person meets
 * "(… is not shown in the playground)" under a field they cannot fill.
 */

const botSource = new URL('../../../src/', import.meta.url).pathname;

/** Slack's block types and where its elements may sit (api.slack.com/reference/block-kit). */
const SLACK_BLOCKS = new Set([
  'actions',
  'context',
  'context_actions',
  'divider',
  'file',
  'header',
  'image',
  'input',
  'markdown',
  'rich_text',
  'section',
  'table',
  'video',
]);
const ACTION_ONLY_ELEMENTS = new Set([
  'button',
  'overflow',
  'workflow_button',
  'icon_button',
  'feedback_buttons',
  'image',
]);
const INPUT_ELEMENTS = new Set([
  'checkboxes',
  'datepicker',
  'datetimepicker',
  'email_text_input',
  'file_input',
  'number_input',
  'plain_text_input',
  'radio_buttons',
  'rich_text_input',
  'timepicker',
  'url_text_input',
  'static_select',
  'external_select',
  'users_select',
  'conversations_select',
  'channels_select',
  'multi_static_select',
  'multi_external_select',
  'multi_users_select',
  'multi_conversations_select',
  'multi_channels_select',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Every `type: '…'` literal in the bot's source: the block and element types it can build. */
function typesInBotSource(): Set<string> {
  const found = new Set<string>();
  for (const file of sourceFiles(botSource)) {
    for (const match of readFileSync(file, 'utf8').matchAll(/\btype:\s*['"]([a-z_]+)['"]/g)) found.add(match[1]!);
  }
  return found;
}

describe('the playground draws what the bot sends', () => {
  const used = typesInBotSource();

  it("finds the bot's Block Kit in its source", () => {
    // A scan that found nothing would pass below without checking anything.
    expect([...used].filter((type) => SLACK_BLOCKS.has(type))).toEqual(
      expect.arrayContaining(['section', 'input', 'actions']),
    );
    expect([...used].filter((type) => INPUT_ELEMENTS.has(type))).toEqual(
      expect.arrayContaining(['plain_text_input', 'static_select']),
    );
  });

  it('draws every block type the bot uses', () => {
    const missing = [...used].filter((type) => SLACK_BLOCKS.has(type) && !DRAWN_BLOCKS.has(type));
    expect(missing).toEqual([]);
  });

  it('draws every input element the bot uses', () => {
    const missing = [...used].filter((type) => INPUT_ELEMENTS.has(type) && !DRAWN_ELEMENTS.input.has(type));
    expect(missing).toEqual([]);
  });

  it('draws every button-like element the bot uses', () => {
    const missing = [...used].filter((type) => ACTION_ONLY_ELEMENTS.has(type) && !DRAWN_ELEMENTS.action.has(type));
    expect(missing).toEqual([]);
  });

  it('draws the selects whose values are ids or lists', () => {
    for (const type of ['conversations_select', 'channels_select', 'users_select', 'multi_static_select'])
      expect(DRAWN_ELEMENTS.input.has(type)).toBe(true);
  });
});
