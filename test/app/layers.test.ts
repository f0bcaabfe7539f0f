import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');
const biome = join(root, 'node_modules/.bin/biome');

/** Every TypeScript module under a folder, as paths relative to the repository. */
function modules(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

const commands = 'src/commands/';
/** The domain: it returns results and events, and knows nothing of Slack or of words a person reads. */
const domain = ['attacks', 'guardrails', 'gamedays', 'login', 'tickets', 'workflow', 'jobs'];

interface Override {
  includes: string[];
  linter?: { rules?: { style?: { noRestrictedImports?: unknown } } };
}
const config = JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8')) as {
  linter: { rules: { suspicious: Record<string, unknown> } };
  overrides: Override[];
};

/**
 * Lints these files, laid out as in the repository, with the repository's own biome.json in a
 * folder of their own (nothing is written under src/): "path:line rule" for each diagnostic.
 */
function lint(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-layers-'));
  try {
    writeFileSync(join(dir, 'biome.json'), readFileSync(join(root, 'biome.json')));
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    }
    // No VCS there: the repository's .gitignore is not what is tested.
    const run = spawnSync(biome, ['lint', '--vcs-enabled=false', '--reporter=rdjson', '--max-diagnostics=none', '.'], {
      cwd: dir,
      encoding: 'utf8',
    });
    const report = JSON.parse(run.stdout) as {
      diagnostics: { code: { value: string }; location: { path: string; range: { start: { line: number } } } }[];
    };
    return report.diagnostics.map(
      (d) => `${d.location.path}:${d.location.range.start.line} ${d.code.value.replace('lint/', '')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A module made of these imports, each used. */
const importing = (...specifiers: string[]) =>
  `${specifiers.map((s, i) => `import { x${i} } from '${s}';`).join('\n')}\nexport const all = [${specifiers.map((_, i) => `x${i}`).join(', ')}];\n`;

const restricted = 'style/noRestrictedImports';

// The layer and feature rules are biome.json's (noRestrictedImports per folder, noImportCycles),
// so an editor shows a wrong import as it is typed; these tests show that each rule fires.
describe('import rules', () => {
  it('refuses an import that points up a layer, wherever it is written, and lets the others be', () => {
    const flagged = lint({
      'src/attacks/probe.ts': importing('../slack/adapter.ts', '../views/halt.ts', '../client/index.ts'),
      'src/attacks/deeper/probe.ts': importing('../../commands/halt.ts', '../cards.ts'),
      'src/gamedays/probe.ts': importing('../views/plan.ts', '../attacks/start.ts'),
      'src/guardrails/probe.ts': importing('../slack/notices.ts'),
      'src/login/probe.ts': importing('../commands/login.ts'),
      'src/tickets/probe.ts': importing('../views/ticket.ts'),
      'src/jobs/probe.ts': importing('../slack/messenger.ts', '../store/keys.ts'),
      'src/views/probe.ts': importing('../slack/messenger.ts', '../commands/command.ts', '../attacks/cards.ts'),
      'src/commands/probe.ts': importing(
        '../slack/adapter.ts',
        '../views/halt.ts',
        '../attacks/halt.ts',
        './command.ts',
      ),
      'src/commands/attack/probe.ts': importing('../../slack/people.ts', '@slack/types'),
      'src/store/probe.ts': importing('../commands/command.ts'),
      'src/probe.ts': importing('./commands/halt.ts', './views/halt.ts'),
      'src/slack/adapter.ts': importing('../commands/command.ts', '../commands/halt.ts', '../views/halt.ts'),
      'src/listeners.ts': importing('./commands/halt.ts'),
      'src/app.ts': importing('./commands/login.ts'),
    });
    expect(flagged.sort()).toEqual(
      [
        'src/attacks/probe.ts:1',
        'src/attacks/probe.ts:2',
        'src/attacks/deeper/probe.ts:1',
        'src/gamedays/probe.ts:1',
        'src/guardrails/probe.ts:1',
        'src/login/probe.ts:1',
        'src/tickets/probe.ts:1',
        'src/jobs/probe.ts:1',
        'src/views/probe.ts:1',
        'src/views/probe.ts:2',
        'src/commands/probe.ts:1',
        'src/commands/attack/probe.ts:1',
        'src/store/probe.ts:1',
        'src/probe.ts:1',
        'src/slack/adapter.ts:2',
      ]
        .map((at) => `${at} ${restricted}`)
        .sort(),
    );
  });

  it('refuses an import cycle, but not one that only types close', () => {
    expect(
      lint({
        'src/attacks/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
        'src/attacks/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
        'src/attacks/c.ts': "import type { D } from './d.ts';\nexport type C = D[];\n",
        'src/attacks/d.ts': "import type { C } from './c.ts';\nexport type D = { c: C };\nexport const d = 1;\n",
      }),
    ).toEqual(['src/attacks/a.ts:1 suspicious/noImportCycles', 'src/attacks/b.ts:1 suspicious/noImportCycles']);
    expect(config.linter.rules.suspicious['noImportCycles']).toBe('error');
  });

  it('gives every folder of src/ its rules: a new feature folder is added to the domain', () => {
    const ruled = (folder: string) =>
      config.overrides.some(
        (o) => o.linter?.rules?.style?.noRestrictedImports && o.includes.includes(`src/${folder}/**`),
      );
    const folders = readdirSync(src, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    for (const folder of domain) expect(folders).toContain(folder);
    // The platform client and the store below the domain, and src/slack above it, may import
    // anything but the commands (the first override, which holds all of src/).
    expect(folders.filter((folder) => !ruled(folder) && !['client', 'store', 'slack'].includes(folder))).toEqual([]);
  });
});

// What Biome's import rules cannot see: a property read off the parts a feature is built with, and the words in a string.
describe('module layers, beyond imports', () => {
  it('keeps the domain from reaching Slack through its parts (the messenger, files, people)', () => {
    const slackDeps =
      /\b(?:deps|parts|this\.#(?:deps|parts))\.(?:slack|files|people)\b|Pick<\w+Parts,[^>]*'(?:slack|files|people)'/;
    const users = (from: (file: string) => boolean) =>
      modules(src)
        .filter(from)
        .filter((file) => slackDeps.test(readFileSync(join(root, file), 'utf8')));
    // The commands do use them, so the pattern sees real uses.
    expect(users((file) => file.startsWith(commands)).length).toBeGreaterThan(3);
    expect(users((file) => domain.some((folder) => file.startsWith(`src/${folder}/`)))).toEqual([]);
  });

  it('keeps the Slack mrkdwn a person reads out of the commands, but for the argument contract', () => {
    // The usage lines and "did you mean" of each subcommand belong with its argument contract.
    const contractFiles = ['contract.ts'].map((file) => `${commands}${file}`);
    // A name that matches no file would exempt nothing and hide that the list went stale.
    expect(contractFiles.filter((file) => !existsSync(join(root, file)))).toEqual([]);
    // Comment lines go first: an apostrophe in one would pair with the quote of a real string.
    const code = (file: string) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(?:\/\/|\/?\*)/.test(line))
        .join('\n');
    const literals = (file: string) =>
      [...code(file).matchAll(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g)].map((match) => match[0]);
    /** An emoji code such as `:warning:`, or a mention `<@`. */
    const mrkdwn = /:[a-z][a-z0-9_+-]*:|<@/;
    const wording = (files: string[]) =>
      files.flatMap((file) =>
        literals(file)
          .filter((literal) => mrkdwn.test(literal))
          .map((literal) => `${file}: ${literal}`),
      );
    // It reads the commands' literals, and its pattern finds the words the views hold.
    expect(literals(`${commands}attacks/halt.ts`)).toContain("'halt'");
    expect(wording(['src/views/attacks/halt.ts']).length).toBeGreaterThan(0);
    expect(wording(modules(join(root, commands)).filter((file) => !contractFiles.includes(file)))).toEqual([]);
  });
});
