import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** Calls of the platform client's halt endpoints: `api.attacks.halt(`, `.kubernetes.haltAll(`, `.haltEverything(`. */
const haltCall = /\.(?:attacks|kubernetes)\s*\.\s*(?:halt|haltAll|haltEverything)\s*\(/;

describe('the halt', () => {
  it('is the only code that calls the platform’s halt endpoints', () => {
    const callers = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => relative(root, join(entry.parentPath, entry.name)))
      .filter((file) => !file.startsWith('src/client/'))
      .filter((file) => haltCall.test(readFileSync(join(root, file), 'utf8').replace(/\s+/g, ' ')));
    expect(callers).toEqual(['src/attacks/halt.ts']);
  });
});
