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
/** The handler contract: the Slack adapter turns what a handler returns into Slack calls. */
const handlerContract = 'src/commands/reply.ts';
// The registration table and the app that wires the routes sit above the commands.
const mayImportCommands = (file: string, target: string) =>
  file.startsWith(commands) ||
  file === 'src/listeners.ts' ||
  file === 'src/app.ts' ||
  (file === 'src/slack/adapter.ts' && target === handlerContract);

/** The domain: it returns results and events, and knows nothing of Slack or of words a person reads. */
const domain = ['attacks', 'guardrails', 'gamedays', 'login', 'tickets', 'jobs'].map((folder) => `src/${folder}/`);
const aboveDomain = ['src/views/', 'src/slack/', commands];

/** Every import of `from` modules that lands in one of `into`, as "file imports target". */
function importsInto(from: (file: string) => boolean, into: (target: string, file: string) => boolean): string[] {
  return modules(src)
    .filter(from)
    .flatMap((file) =>
      localImports(file)
        .filter((target) => into(target, file))
        .map((target) => `${file} imports ${target}`),
    );
}

describe('module layers', () => {
  it('finds the imports it checks (the listener table imports the commands)', () => {
    expect(localImports('src/listeners.ts').filter((target) => target.startsWith(commands)).length).toBeGreaterThan(5);
  });

  it('lets nothing below the commands import them', () => {
    const upward = importsInto(
      () => true,
      (target, file) => target.startsWith(commands) && !mayImportCommands(file, target),
    );
    expect(upward).toEqual([]);
  });

  it('finds the imports it checks (the Slack recorder imports views and the domain; commands import the domain)', () => {
    const recorder = localImports('src/slack/record.ts');
    expect(recorder.filter((target) => target.startsWith('src/views/')).length).toBeGreaterThan(0);
    expect(recorder.filter((target) => domain.some((folder) => target.startsWith(folder))).length).toBeGreaterThan(0);
    expect(
      importsInto(
        (file) => file.startsWith(commands),
        (target) => domain.some((folder) => target.startsWith(folder)),
      ).length,
    ).toBeGreaterThan(10);
  });

  it('keeps views, Slack and the commands out of the domain', () => {
    const inDomain = (file: string) => domain.some((folder) => file.startsWith(folder));
    expect(importsInto(inDomain, (target) => aboveDomain.some((folder) => target.startsWith(folder)))).toEqual([]);
  });

  it('keeps the views pure: they neither call Slack nor reach into the commands', () => {
    expect(
      importsInto(
        (file) => file.startsWith('src/views/'),
        (target) => target.startsWith('src/slack/') || target.startsWith(commands),
      ),
    ).toEqual([]);
  });

  it('keeps the domain from reaching Slack through deps (the messenger, files, people)', () => {
    const slackDeps = /\b(?:deps|this\.#deps)\.(?:slack|files|people)\b|Pick<Deps,[^>]*'(?:slack|files|people)'/;
    const users = (from: (file: string) => boolean) =>
      modules(src)
        .filter(from)
        .filter((file) => slackDeps.test(readFileSync(join(root, file), 'utf8')));
    // The commands do use them, so the pattern sees real uses.
    expect(users((file) => file.startsWith(commands)).length).toBeGreaterThan(3);
    expect(users((file) => domain.some((folder) => file.startsWith(folder)))).toEqual([]);
  });

  it('lets the commands use Slack only through deps', () => {
    expect(
      importsInto(
        (file) => file.startsWith(commands),
        (target) => target.startsWith('src/slack/'),
      ),
    ).toEqual([]);
  });

  it('keeps the Slack mrkdwn a person reads out of the commands, but for the argument contract', () => {
    // The usage lines and "did you mean" of each subcommand belong with its argument contract.
    const contractFiles = ['contract.ts', 'attack/parse.ts', 'attack/validate.ts', 'attack/usage.ts'].map(
      (file) => `${commands}${file}`,
    );
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
    expect(literals(`${commands}halt.ts`)).toContain("'halt'");
    expect(wording(['src/views/halt.ts']).length).toBeGreaterThan(0);
    expect(wording(modules(join(root, commands)).filter((file) => !contractFiles.includes(file)))).toEqual([]);
  });

  it('checks every domain folder', () => {
    const folders = new Set(modules(src).map((file) => `src/${file.split('/')[1]}/`));
    for (const folder of domain) expect(folders).toContain(folder);
  });

  it('checks the lower layers named in the README', () => {
    const checked = new Set(
      modules(src)
        .filter((file) => !file.startsWith(commands))
        .map((file) => file.split('/')[1]),
    );
    for (const layer of ['attacks', 'views', 'client', 'store', 'slack', 'gamedays', 'tickets'])
      expect(checked).toContain(layer);
  });
});
