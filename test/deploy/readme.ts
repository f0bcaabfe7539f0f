import { readFileSync } from 'node:fs';
import { root } from './dockerfile.ts';

/** The README's "Deploying" section, up to the next second-level heading. */
export function deployingSection(): string {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const start = readme.indexOf('\n## Deploying\n');
  if (start < 0) throw new Error('README has no "Deploying" section');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The `--from-literal=KEY=value` pairs of the README's `kubectl create secret` command. */
export function documentedSecret(): Record<string, string> {
  return Object.fromEntries([...deployingSection().matchAll(/--from-literal=(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
}
