import { readFileSync } from 'node:fs';
import dockerignore from '@balena/dockerignore';

// The package's types declare an ES default export, but it is `module.exports = ignore`, which Node
// hands over as the default import itself.
const ignore = dockerignore as unknown as typeof dockerignore.default;

export const root = new URL('../../', import.meta.url).pathname;

export interface Instruction {
  keyword: string;
  /** Everything after the keyword, continuation lines joined. */
  args: string;
  /** `--name=value` options before the arguments (COPY --from, HEALTHCHECK --interval, …). */
  flags: Record<string, string>;
  /** The arguments after the flags. */
  rest: string;
}

export interface Stage {
  from: string;
  name: string | undefined;
  instructions: Instruction[];
}

export interface Dockerfile {
  args: Record<string, string>;
  stages: Stage[];
}

/** Enough of the Dockerfile grammar for these tests: comments, `\` continuations, stages, flags. */
export function parseDockerfile(text: string): Dockerfile {
  const logical = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, word = '', argText = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const keyword = word.toUpperCase();
    const flags: Record<string, string> = {};
    let rest = argText;
    for (let flag = /^--([a-z-]+)=(\S+)\s*/.exec(rest); flag; flag = /^--([a-z-]+)=(\S+)\s*/.exec(rest)) {
      flags[flag[1]!] = flag[2]!;
      rest = rest.slice(flag[0].length);
    }
    const instruction = { keyword, args: argText, flags, rest };
    if (keyword === 'FROM') {
      const [image = '', as, name] = rest.split(/\s+/);
      const from = image.replace(/\$\{(\w+)\}/g, (_m, arg: string) => args[arg] ?? '');
      stages.push({ from, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length === 0) {
      if (keyword === 'ARG') {
        const [name = '', value = ''] = rest.split('=');
        args[name] = value;
      }
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { args, stages };
}

export function readDockerfile(): Dockerfile {
  return parseDockerfile(readFileSync(`${root}Dockerfile`, 'utf8'));
}

/** An exec-form argument list (`["node", "src/main.ts"]`), or undefined for the shell form. */
export function execForm(text: string): string[] | undefined {
  if (!text.trim().startsWith('[')) return undefined;
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) && parsed.every((part) => typeof part === 'string') ? parsed : undefined;
}

/** The build-context paths copied into the image (COPY without --from), as written. */
export function copiedFromContext(dockerfile: Dockerfile): string[] {
  const sources = dockerfile.stages
    .flatMap((stage) => stage.instructions)
    .filter((i) => (i.keyword === 'COPY' || i.keyword === 'ADD') && i.flags.from === undefined)
    .flatMap((i) => (execForm(i.rest) ?? i.rest.split(/\s+/)).slice(0, -1))
    .map((source) => source.replace(/^\.\//, '').replace(/\/$/, ''));
  return [...new Set(sources)];
}

/** The same decision Docker makes about which paths enter the build context. */
export function contextFilter(): (path: string) => boolean {
  const rules = readFileSync(`${root}.dockerignore`, 'utf8')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const ignored = ignore().add(rules);
  return (path) => !ignored.ignores(path);
}
