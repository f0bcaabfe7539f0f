/**
 * The docs name files of the code by path (`src/attacks/service.ts`, or a link to one); a module
 * merged, moved or removed leaves such a path behind, so every one of them must exist.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** README.md and every `.md` file under docs/, as paths from the root. */
const files = [
  'README.md',
  ...readdirSync(resolve(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Every `src/…` or `packages/…` path a Markdown text writes in backticks or links to. */
function codePaths(markdown: string): string[] {
  const path = String.raw`((?:src|packages)/[\w./-]*[\w/])`;
  const quoted = new RegExp(String.raw`\`${path}\``, 'g');
  const linked = new RegExp(String.raw`\]\((?:\.\.?/)*${path}(?:#[^)]*)?\)`, 'g');
  return [...markdown.matchAll(quoted), ...markdown.matchAll(linked)].map((m) => m[1]!);
}

/** The paths of `file` that name nothing in the repository, as `file → path`. */
function missing(file: string, markdown: string): string[] {
  return codePaths(markdown)
    .filter((path) => !existsSync(resolve(root, path)))
    .map((path) => `${file} → ${path}`);
}

describe('paths of the code in the README and docs/', () => {
  const texts = files.map((file) => [file, readFileSync(resolve(root, file), 'utf8')] as const);

  it('are found in good number', () => {
    expect(texts.flatMap(([, text]) => codePaths(text)).length).toBeGreaterThan(200);
  });

  it('each name a file or folder that exists', () => {
    expect(texts.flatMap(([file, text]) => missing(file, text))).toEqual([]);
  });

  it('tell a removed module from a present one', () => {
    const text = 'See `src/attacks/service.ts`, [the adapter](../src/slack/adapter.ts) and `src/attacks/gone.ts`.';
    expect(codePaths(text).sort()).toEqual(['src/attacks/gone.ts', 'src/attacks/service.ts', 'src/slack/adapter.ts']);
    expect(missing('docs/x.md', text)).toEqual(['docs/x.md → src/attacks/gone.ts']);
  });
});
