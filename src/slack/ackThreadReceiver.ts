import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type { App, Receiver } from '@slack/bolt';
import type { Logger } from '../logger.ts';
import type { AckThreadOptions, MainMessage, ThreadMessage } from './ackThreadProtocol.ts';

/** A thread that ended is started again after this long, and given up on if it cannot listen again. */
const restartAfterMs = 1_000;

export interface AckThreadReceiverOptions extends Omit<AckThreadOptions, 'port' | 'held'> {
  /** Called once the thread could not be started again: Slack's requests go unanswered. */
  onGiveUp: () => void;
  /** The thread's module; tests give one that can be made to fail. */
  threadUrl?: URL;
}

/**
 * Bolt's receiver when Slack's endpoint is on the ack thread (ackThread.ts): each delivery the
 * thread takes is run here through the app's listeners. One the thread already answered gets an
 * ack that does nothing and is marked `preAcked` in the listener's context; one that waits for its
 * answer gets an ack that sends it back to the thread that took it.
 */
export class AckThreadReceiver implements Receiver {
  readonly #options: AckThreadReceiverOptions;
  readonly #logger: Logger;
  readonly #inFlight = new Set<Promise<unknown>>();
  #app: App | undefined;
  /** The running thread; undefined once it has ended. */
  #worker: Worker | undefined;
  #port = 0;
  #held = false;
  #stopping = false;

  constructor(options: AckThreadReceiverOptions, logger: Logger) {
    this.#options = options;
    this.#logger = logger;
  }

  init(app: App): void {
    this.#app = app;
  }

  /** The port the thread listens on, once started. */
  get port(): number {
    return this.#port;
  }

  async start(port: number): Promise<{ port: number }> {
    this.#port = await this.#spawn(port);
    return { port: this.#port };
  }

  /**
   * From now on the thread answers nothing at once: each delivery waits for its listener, which
   * says the bot is restarting. Resolves when every delivery the thread answered already is being
   * run here (or the thread has ended, and a thread started again starts held).
   */
  async hold(): Promise<void> {
    this.#held = true;
    const worker = this.#worker;
    if (!worker) return;
    worker.postMessage({ type: 'hold' } satisfies MainMessage);
    await this.#reply(worker, 'holding').catch(() => undefined);
  }

  /** Resolves when every delivery taken so far has been run through the listeners. */
  async drain(): Promise<void> {
    while (this.#inFlight.size) await Promise.allSettled([...this.#inFlight]);
  }

  /** Closes the thread's server (requests on open connections are still answered), then the thread. */
  async stop(): Promise<void> {
    this.#stopping = true;
    const worker = this.#worker;
    if (worker) {
      worker.postMessage({ type: 'close' } satisfies MainMessage);
      await this.#reply(worker, 'closed').catch(() => undefined);
    }
    await this.drain();
    this.#worker = undefined;
    await worker?.terminate();
  }

  async #spawn(port: number): Promise<number> {
    const { onGiveUp: _onGiveUp, threadUrl = new URL('./ackThread.ts', import.meta.url), ...shared } = this.#options;
    const options: AckThreadOptions = { ...shared, port, held: this.#held };
    const worker = new Worker(threadUrl, { workerData: options });
    this.#worker = worker;
    worker.on('message', (message: ThreadMessage) => this.#take(worker, message));
    worker.on('error', (error) => this.#logger.error({ err: error }, 'the ack thread failed'));
    worker.on('exit', (code) => {
      if (this.#worker !== worker) return;
      // Nothing left to hold or close: a stop goes on without waiting for this thread.
      this.#worker = undefined;
      if (!this.#stopping) void this.#restart(code);
    });
    let started: ThreadMessage;
    try {
      started = await this.#reply(worker, 'listening', 'failed');
    } catch (error) {
      this.#worker = undefined;
      throw error;
    }
    if (started.type === 'failed') {
      this.#worker = undefined;
      await worker.terminate();
      throw new Error(`Slack's endpoint could not listen on port ${port}: ${started.message}`);
    }
    return (started as { port: number }).port;
  }

  /** Slack's endpoint went with the thread: it is taken up again on the same port, once. */
  async #restart(code: number): Promise<void> {
    this.#logger.error({ code }, 'the ack thread stopped; starting it again');
    await sleep(restartAfterMs);
    if (this.#stopping) return;
    try {
      await this.#spawn(this.#port);
      this.#logger.info({ port: this.#port }, 'the ack thread is running again');
    } catch (error) {
      this.#logger.fatal(
        { err: error },
        'could not start the ack thread again: Slack requests go unanswered until Faultline is restarted',
      );
      this.#options.onGiveUp();
    }
  }

  /** The thread's next message of one of `types` (it ends or fails otherwise). */
  async #reply(worker: Worker, ...types: ThreadMessage['type'][]): Promise<ThreadMessage> {
    const controller = new AbortController();
    const exited = once(worker, 'exit', { signal: controller.signal }).then(([code]) => {
      throw new Error(`The ack thread ended (${String(code)}) before it said ${types.join(' or ')}`);
    });
    const answered = new Promise<ThreadMessage>((resolve) => {
      const listener = (message: ThreadMessage) => {
        if (!types.includes(message.type)) return;
        worker.off('message', listener);
        resolve(message);
      };
      worker.on('message', listener);
    });
    try {
      return await Promise.race([answered, exited]);
    } finally {
      controller.abort();
      exited.catch(() => undefined);
    }
  }

  #take(worker: Worker, message: ThreadMessage): void {
    switch (message.type) {
      case 'log':
        this.#logger[message.level](message.message);
        return;
      case 'delivery':
        this.#run(worker, message);
        return;
      default:
        return;
    }
  }

  /** Runs one delivery; an answer goes back to the thread that took it, never to one started since. */
  #run(worker: Worker, delivery: Extract<ThreadMessage, { type: 'delivery' }>): void {
    const app = this.#app;
    if (!app) throw new Error('The ack thread receiver was started before Bolt initialised it');
    const { id, body, preAcked, retryNum, retryReason } = delivery;
    let acked = preAcked;
    const answer = (message: MainMessage) => {
      if (this.#worker === worker) worker.postMessage(message);
    };
    const ack = async (response?: unknown) => {
      if (acked) return;
      acked = true;
      answer({ type: 'ack', id, response });
    };
    const running = app
      .processEvent({ body, ack, retryNum, retryReason, customProperties: { preAcked } })
      .catch((error: unknown) => {
        this.#logger.error({ err: error }, 'could not run a Slack request');
        if (acked) return;
        acked = true;
        answer({ type: 'ack', id, failed: true });
      });
    this.#inFlight.add(running);
    void running.finally(() => this.#inFlight.delete(running));
  }
}
