import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Stack, stackForFile } from './harness.ts';

/**
 * `/chaos help` as Slack shows it: within Slack's limits without cutting a word, naming every
 * subcommand the README lists, and each of those with a page of its own.
 */

const channel = 'C0GENERAL';
let stack: Stack;
stackForFile({}, (started) => (stack = started));

/** The subcommands of the README's command table: every `/chaos <name>` in a row's first cell. */
const readmeSubcommands = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('| `/chaos '))
  .flatMap((line) =>
    [...line.split(/ {2,}\| | \| (?=[a-z])/)[0]!.matchAll(/`\/chaos ([a-z]+)/g)].map((match) => match[1]!),
  );
const listed = [...new Set([...readmeSubcommands, 'help'])];

type Text = { type: string; text: string };
type Block = { type: string; text?: Text; elements?: Text[]; fields?: Text[] };

/** Every text of a message's blocks, each as Slack limits it. */
function textsOf(blocks: Block[]): string[] {
  return blocks.flatMap((block) => [
    ...(block.text ? [block.text.text] : []),
    ...(block.fields ?? []).map((field) => field.text),
    ...(block.elements ?? []).filter((element) => typeof element.text === 'string').map((element) => element.text),
  ]);
}

function expectWithinSlackLimits(blocks: Block[]): void {
  expect(blocks.length).toBeLessThanOrEqual(50);
  for (const text of textsOf(blocks)) {
    expect(text.length).toBeLessThanOrEqual(3000);
    // A text cut to fit ends in an ellipsis, mid-word.
    expect(text).not.toMatch(/…$/);
  }
}

describe('help', () => {
  it('finds the subcommands the README lists', () => {
    expect(listed).toEqual(
      expect.arrayContaining(['login', 'logout', 'whoami', 'attack', 'freeze', 'unfreeze', 'watch', 'unwatch', 'help']),
    );
  });

  it('lists every subcommand the README names, whole, within Slack’s limits', async () => {
    const reply = await stack.ask('U0HELP1', 'help', { channel });
    const blocks = reply.blocks as Block[];
    expectWithinSlackLimits(blocks);
    const shown = Stack.read(reply);
    for (const name of listed) expect(shown).toContain(`/chaos ${name}`);
    expect(shown).toContain('/chaos help <subcommand>');
    stack.expectClean();
  });

  it.each(listed)('gives %s a page of its own, with its usage and examples, within Slack’s limits', async (name) => {
    const reply = await stack.ask('U0HELP2', `help ${name}`, { channel });
    expectWithinSlackLimits(reply.blocks as Block[]);
    const shown = Stack.read(reply);
    expect(shown).toContain(`/chaos ${name}`);
    expect(shown).toContain('Examples');
    stack.expectClean();
  });
});
