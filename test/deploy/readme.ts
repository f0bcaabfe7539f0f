import { readFileSync } from 'node:fs';
import { root } from './dockerfile.ts';

/** The `--from-literal=KEY=value` pairs of the `kubectl create secret` command in docs/deploying.md. */
export function documentedSecret(): Record<string, string> {
  const guide = readFileSync(`${root}docs/deploying.md`, 'utf8');
  return Object.fromEntries([...guide.matchAll(/--from-literal=(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
}
