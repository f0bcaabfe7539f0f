import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

/** Whether this machine has a redis-server binary (CI installs one); tests that need their own skip without it. */
export const hasRedisServer = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * A redis-server of a test's own, on a free port, that the test can stop and start again (same
 * port, same data: the append-only file is written on every change, as a durable Redis would).
 */
export class RedisServer {
  readonly port: number;
  readonly #dir: string;
  #process: ChildProcess | undefined;

  private constructor(port: number, dir: string) {
    this.port = port;
    this.#dir = dir;
  }

  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), mkdtempSync(join(tmpdir(), 'faultline-redis-')));
    await server.restart();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server (again) and resolves once it accepts connections. */
  async restart(): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.#dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.#process = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const read = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-4_000);
        if (output.includes('Ready to accept connections')) resolve();
      };
      // Read to the end, so a chatty server never blocks on a full pipe.
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
      child.once('error', reject);
    });
  }

  /** Stops the server as an outage would: connections drop, new ones are refused. */
  async stop(): Promise<void> {
    const child = this.#process;
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }

  async remove(): Promise<void> {
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
