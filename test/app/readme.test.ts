/**
 * The README is a guide a newcomer reads top to bottom: short, in a set order, its demo walk in
 * the order the demo shows things, everything else one link away in docs/. Its links, and every
 * link of docs/, lead somewhere; `.env.example` names every variable the bot reads; and the map
 * of the code names every folder of src/ and every background job.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Services } from '../../src/services.ts';
import { environmentSchema } from '../../src/environment.ts';
import { backgroundJobs } from '../../src/jobs/backgroundJobs.ts';

const root = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(resolve(root, path), 'utf8');
const readme = read('README.md');

/** The README's second-level headings, in order. */
const sections = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);

/** One `## ` section of the README, up to the next. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`the README has no section "${title}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

describe('the README', () => {
  it('is at most 25,000 bytes', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(25_000);
  });

  it('says what Faultline is, then the contents, the quick start, the demo walk, the commands, the Slack app and the configuration', () => {
    expect(readme.startsWith('# Faultline\n\nRun, watch and halt')).toBe(true);
    expect(sections).toEqual([
      'Contents',
      'Quick start',
      'Try it in the demo',
      'Commands',
      'Running against Slack',
      'Configuration',
    ]);
  });

  it('keeps one command for the bot or demo and one for the tests', () => {
    expect(section('Quick start')).toMatch(
      /```sh\n\.\/run\.sh +# [^\n]*runs the bot\n\.\/run\.sh test +# [^\n]*tests\n```/,
    );
  });

  it('walks the demo in the order it shows things: an attack, a restart, presence, a resisting target, a freeze, game days, approval', () => {
    const walks = [...section('Try it in the demo').matchAll(/^### (.+)$/gm)].map((m) => m[1]!);
    const order = [
      /^An attack/,
      /^A restart keeps/,
      /^Presence checks/,
      /^A target that resists a halt/,
      /^A freeze/,
      /^A game day, from start to summary$/,
      /^A game day from a plan$/,
      /^A guard firing/,
      /^Approval and the secure login page/,
    ].map((wanted) => walks.findIndex((walk) => wanted.test(walk)));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(section('Try it in the demo')).toContain('./run.sh --fresh');
  });

  it('links every page of docs/ from its contents, but for the decisions, which have their index', () => {
    const contents = section('Contents');
    const pages = markdownFiles('docs').filter((path) => !path.startsWith('docs/decisions/'));
    expect(pages.length).toBeGreaterThan(8);
    expect(pages.filter((page) => !contents.includes(`](${page})`))).toEqual([]);
    expect(contents).toContain('](docs/decisions/README.md)');
  });
});

/** Every `.md` file under a folder, as a path from the root. */
function markdownFiles(folder: string): string[] {
  return readdirSync(resolve(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => `${folder}/${name}`)
    .sort();
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings, a repeated one numbered as GitHub does. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of withoutCode(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(heading!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** The text without fenced blocks and inline code, where brackets are not links. */
function withoutCode(markdown: string): string {
  return markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
}

/** Every link of a Markdown file that is not a web address: `[text](target)` and `![alt](target)`. */
function relativeLinks(markdown: string): string[] {
  return [...withoutCode(markdown).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/i.test(target));
}

describe('links in the README and docs/', () => {
  const files = ['README.md', ...markdownFiles('docs')];

  /** What is wrong with one link of a file, or nothing. */
  function broken(file: string, target: string): string | undefined {
    const [path, anchor] = target.split('#') as [string, string | undefined];
    const to = path === '' ? resolve(root, file) : resolve(root, dirname(file), decodeURI(path));
    const shown = `${file} → ${target}`;
    if (!existsSync(to)) return `${shown}: no such file`;
    if (anchor === undefined || statSync(to).isDirectory() || !to.endsWith('.md')) return undefined;
    return anchors(readFileSync(to, 'utf8')).has(anchor)
      ? undefined
      : `${shown}: no such heading in ${relative(root, to)}`;
  }

  it('are found', () => {
    expect(relativeLinks(readme).length).toBeGreaterThan(20);
    expect(relativeLinks(readme).some((target) => target.includes('#'))).toBe(true);
  });

  it('each lead to a file that exists and, for an anchor into a .md file, to one of its headings', () => {
    const wrong = files.flatMap((file) => relativeLinks(read(file)).flatMap((target) => broken(file, target) ?? []));
    expect(wrong).toEqual([]);
  });

  it('tell a missing heading from a present one', () => {
    expect(broken('README.md', '#quick-start')).toBeUndefined();
    expect(broken('README.md', 'docs/guides/halts.md#verified-halts')).toBeUndefined();
    expect(broken('README.md', '#no-such-heading')).toMatch(/no such heading/);
    expect(broken('README.md', 'docs/no-such-page.md')).toMatch(/no such file/);
  });
});

/** The variables of the README's configuration table, from the first cell of each row. */
const configured = [...section('Configuration').matchAll(/^\| (`[A-Z_]+`(?:, `[A-Z_]+`)*) \|/gm)].flatMap((m) =>
  [...m[1]!.matchAll(/`([A-Z_]+)`/g)].map((v) => v[1]!),
);
/** The variables `.env.example` names, set or commented out. */
const example = read('.env.example');
const exampled = new Set([...example.matchAll(/^#? ?([A-Z_]+)=/gm)].map((m) => m[1]!));

describe('the configuration', () => {
  const variables = Object.keys(environmentSchema.shape);

  it('table names every variable the bot reads, and no other', () => {
    expect(variables.length).toBeGreaterThan(20);
    expect([...configured].sort()).toEqual([...variables].sort());
  });

  it('is all in .env.example, single sign-on included', () => {
    expect(configured.filter((name) => !exampled.has(name))).toEqual([]);
    expect(example).toMatch(/^# LOGIN_MODE=sso$/m);
  });
});

describe('the map of the code', () => {
  const map = read('docs/how-it-fits-together.md');
  /** The first column of every table row. */
  const firstCells = [...map.matchAll(/^\s*\| `([^`]+)` \|/gm)].map((m) => m[1]);

  it('has tables to read', () => {
    expect(firstCells.length).toBeGreaterThan(10);
  });

  it('names every folder of src/ with its job', () => {
    const folders = readdirSync(resolve(root, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `src/${entry.name}/`);
    expect(folders.length).toBeGreaterThan(5);
    expect(folders.filter((folder) => !firstCells.includes(folder))).toEqual([]);
  });

  it('lists every background job the bot runs', () => {
    const jobs = backgroundJobs({ attacks: { settings: { pollSeconds: 10 } } } as unknown as Services).map(
      (job) => job.name,
    );
    expect(jobs.length).toBeGreaterThan(3);
    expect(jobs.filter((name) => !firstCells.includes(name))).toEqual([]);
  });
});
