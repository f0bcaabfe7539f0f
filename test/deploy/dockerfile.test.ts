import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contextFilter, copiedFromContext, execForm, parseDockerfile, readDockerfile, root } from './dockerfile.ts';

const dockerfile = readDockerfile();
const runtime = dockerfile.stages.at(-1)!;
const last = (keyword: string) => runtime.instructions.findLast((i) => i.keyword === keyword);

describe('Dockerfile', () => {
  it('builds in stages from a slim Node.js 24 image', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of dockerfile.stages) expect(stage.from).toMatch(/^node:24(\.\d+)*-[a-z]+-slim$/);
  });

  it('installs runtime dependencies only, from the lockfile, without the workspaces', () => {
    const install = dockerfile.stages.find((stage) =>
      stage.instructions.some((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.rest)),
    );
    expect(install?.name).toBeDefined();
    const command = install!.instructions
      .find((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.rest))!
      .rest.split(/\s+/);
    expect(command).toEqual(expect.arrayContaining(['npm', 'ci', '--omit=dev', '--workspaces=false']));
    // Only the installed modules reach the runtime stage, not the compilers of the install stage.
    const fromInstall = runtime.instructions.filter((i) => i.keyword === 'COPY' && i.flags.from === install!.name);
    expect(fromInstall.map((i) => i.rest)).toEqual(['/app/node_modules ./node_modules']);
  });

  it('runs as a numeric non-root user', () => {
    const user = last('USER')?.rest;
    expect(user).toMatch(/^[1-9]\d*(:[1-9]\d*)?$/);
  });

  it('checks /healthz with Node itself, since the slim image has no curl', () => {
    const healthcheck = last('HEALTHCHECK')!;
    expect(healthcheck.rest.startsWith('CMD ')).toBe(true);
    const command = execForm(healthcheck.rest.slice('CMD '.length));
    expect(command?.slice(0, 2)).toEqual(['node', '-e']);
    expect(command?.[2]).toContain('/healthz');
    expect(healthcheck.flags).toMatchObject({
      interval: expect.any(String),
      timeout: expect.any(String),
      'start-period': expect.any(String),
    });
  });

  it('starts node as PID 1 in exec form, so SIGTERM reaches the bot', () => {
    expect(runtime.instructions.some((i) => i.keyword === 'ENTRYPOINT')).toBe(false);
    const command = execForm(last('CMD')!.rest);
    expect(command).toEqual(['node', '--max-semi-space-size=8', 'src/main.ts']);
    expect(existsSync(`${root}${command!.at(-1)}`)).toBe(true);
    // The same V8 flags as `npm start`.
    const start = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: { start: string } }).scripts
      .start;
    expect(start).toMatch(/^node --max-semi-space-size=8 /);
    expect(last('STOPSIGNAL')?.rest ?? 'SIGTERM').toBe('SIGTERM');
  });

  it('tells the shell form apart, so the exec-form checks above can fail', () => {
    const shellForm = parseDockerfile('FROM node:24-trixie-slim\nCMD node src/main.ts\n').stages[0]!.instructions[0]!;
    expect(execForm(shellForm.rest)).toBeUndefined();
  });
});

describe('.dockerignore', () => {
  const inContext = contextFilter();

  it('lets in everything the Dockerfile copies', () => {
    const copied = copiedFromContext(dockerfile);
    expect(copied.sort()).toEqual(['package-lock.json', 'package.json', 'src']);
    for (const path of [...copied, 'src/main.ts', 'src/store/keyValue.ts']) expect(inContext(path), path).toBe(true);
  });

  it('keeps development files, local data and secrets out of the build context', () => {
    const outside = [
      'packages/platform-sim/package.json',
      'test/app/process.test.ts',
      'bench/run.ts',
      'node_modules/zod/package.json',
      'data/faultline.db',
      '.env',
      'src/.env',
      'src/node_modules/x.js',
      '.git/HEAD',
      'docs/decisions/x.md',
      'compose.yaml',
      'deploy/kubernetes/deployment.yaml',
    ];
    for (const path of outside) expect(inContext(path), path).toBe(false);
  });
});
