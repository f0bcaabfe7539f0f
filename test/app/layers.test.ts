import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');

/** Every TypeScript module under a folder, as paths relative to the repository. */
function modules(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** What a module imports from inside the repository: static, re-exported and dynamic imports. */
function localImports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/\b(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map(
    (match) => match[1]!,
  );
  return specifiers.map((specifier) => relative(root, resolve(join(root, dirname(file)), specifier)));
}

const commands = 'src/commands/';
/** The registration table maps ids to command handlers; it is the one module above them. */
// The registration table and the app that wires the routes sit above the commands.
const mayImportCommands = (file: string) =>
  file.startsWith(commands) || file === 'src/listeners.ts' || file === 'src/app.ts';

describe('module layers', () => {
  it('finds the imports it checks (the listener table imports the commands)', () => {
    expect(localImports('src/listeners.ts').filter((target) => target.startsWith(commands)).length).toBeGreaterThan(5);
  });

  it('lets nothing below the commands import them', () => {
    const upward = modules(src)
      .filter((file) => !mayImportCommands(file))
      .flatMap((file) =>
        localImports(file)
          .filter((target) => target.startsWith(commands))
          .map((target) => `${file} imports ${target}`),
      );
    expect(upward).toEqual([]);
  });

  it('checks the lower layers named in the README', () => {
    const checked = new Set(
      modules(src)
        .filter((file) => !mayImportCommands(file))
        .map((file) => file.split('/')[1]),
    );
    for (const layer of ['attacks', 'views', 'client', 'store', 'slack', 'gamedays', 'tickets'])
      expect(checked).toContain(layer);
  });
});
