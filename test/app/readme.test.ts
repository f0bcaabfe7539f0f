/**
 * The README's "How it fits together" is the map a new engineer reads first: it names every
 * folder of src/ with its job, and every background job the bot runs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import { backgroundJobs } from '../../src/jobs/backgroundJobs.ts';

const root = resolve(import.meta.dirname, '../..');
const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## How it fits together'));
/** The first column of every table row in the section. */
const firstCells = [...section.matchAll(/^\s*\| `([^`]+)` \|/gm)].map((m) => m[1]);

describe('the README’s map of the code', () => {
  it('has the section, with tables to read', () => {
    expect(section.startsWith('## How it fits together')).toBe(true);
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
    const jobs = backgroundJobs({ config: { pollSeconds: 10 } } as Deps).map((job) => job.name);
    expect(jobs.length).toBeGreaterThan(3);
    expect(jobs.filter((name) => !firstCells.includes(name))).toEqual([]);
  });
});
