import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/**
 * A benchmark process of its own, spoken to over IPC one message at a time: each request is
 * answered by the child's next message.
 */
export class ChildLink {
  readonly #child: ChildProcess;
  readonly #exited: Promise<unknown>;

  constructor(module: URL, options: { env?: NodeJS.ProcessEnv; execArgv?: string[] } = {}) {
    this.#child = fork(fileURLToPath(module), [], {
      env: options.env ?? process.env,
      execArgv: [...process.execArgv, ...(options.execArgv ?? [])],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this.#exited = once(this.#child, 'exit');
  }

  async request<T>(message: unknown): Promise<T> {
    const answered = once(this.#child, 'message');
    this.#child.send(message as object);
    const exited = this.#exited.then(() => {
      throw new Error(`${this.#child.spawnfile} exited before answering`);
    });
    return (await Promise.race([answered, exited]))[0] as T;
  }

  /** Sends `message` (the child's cue to finish up and exit) and returns its last answer, if any. */
  async stop<T>(message: unknown, graceMs = 30_000): Promise<T | undefined> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return undefined;
    const answer = await Promise.race([
      this.request<T>(message).catch(() => undefined),
      sleep(graceMs, undefined, { ref: false }),
    ]);
    if (answer === undefined) this.#child.kill();
    await this.#exited;
    return answer;
  }
}
