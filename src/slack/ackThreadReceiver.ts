import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { App, Receiver } from '@slack/bolt';
import type { Logger } from '../logger.ts';
import type { AckThreadOptions, MainMessage, ThreadMessage } from './ackThreadProtocol.ts';

/**
 * Bolt's receiver when Slack's endpoint is on the ack thread (ackThread.ts): each delivery the
 * thread takes is run here through the app's listeners. One the thread already answered gets an
 * ack that does nothing and is marked `preAcked` in the listener's context; one that waits for its
 * answer gets an ack that sends it back to the thread.
 */
export class AckThreadReceiver implements Receiver {
  readonly #options: Omit<AckThreadOptions, 'port'>;
  readonly #logger: Logger;
  readonly #inFlight = new Set<Promise<unknown>>();
  #app: App | undefined;
  #worker: Worker | undefined;
  #port = 0;
  #stopping = false;

  constructor(options: Omit<AckThreadOptions, 'port'>, logger: Logger) {
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
   * run here.
   */
  async hold(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    this.#post({ type: 'hold' });
    await this.#reply(worker, 'holding');
  }

  /** Resolves when every delivery taken so far has been run through the listeners. */
  async drain(): Promise<void> {
    while (this.#inFlight.size) await Promise.allSettled([...this.#inFlight]);
  }

  /** Closes the thread's server (requests on open connections are still answered), then the thread. */
  async stop(): Promise<void> {
    this.#stopping = true;
    const worker = this.#worker;
    if (!worker) return;
    this.#post({ type: 'close' });
    await this.#reply(worker, 'closed');
    await this.drain();
    this.#worker = undefined;
    await worker.terminate();
  }

  async #spawn(port: number): Promise<number> {
    const options: AckThreadOptions = { ...this.#options, port };
    const worker = new Worker(new URL('./ackThread.ts', import.meta.url), { workerData: options });
    this.#worker = worker;
    worker.on('message', (message: ThreadMessage) => this.#take(message));
    worker.on('error', (error) => this.#logger.error({ err: error }, 'the ack thread failed'));
    worker.on('exit', (code) => {
      if (this.#worker !== worker || this.#stopping) return;
      // Slack's endpoint went with it: take it up again on the same port.
      this.#logger.error({ code }, 'the ack thread stopped; starting it again');
      this.#spawn(this.#port).catch((error: unknown) => this.#logger.fatal({ err: error }, 'could not start the ack thread again: Slack requests go unanswered'));
    });
    const started = (await this.#reply(worker, 'listening', 'failed')) as ThreadMessage;
    if (started.type === 'failed') {
      this.#stopping = true;
      await worker.terminate();
      throw new Error(`Slack's endpoint could not listen on port ${port}: ${started.message}`);
    }
    return (started as { port: number }).port;
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

  #post(message: MainMessage): void {
    this.#worker?.postMessage(message);
  }

  #take(message: ThreadMessage): void {
    switch (message.type) {
      case 'log':
        this.#logger[message.level](message.message);
        return;
      case 'delivery':
        this.#run(message);
        return;
      default:
        return;
    }
  }

  #run(delivery: Extract<ThreadMessage, { type: 'delivery' }>): void {
    const app = this.#app;
    if (!app) throw new Error('The ack thread receiver was started before Bolt initialised it');
    const { id, body, preAcked, retryNum, retryReason } = delivery;
    let acked = preAcked;
    const ack = async (response?: unknown) => {
      if (acked) return;
      acked = true;
      this.#post({ type: 'ack', id, response });
    };
    const running = app
      .processEvent({ body, ack, retryNum, retryReason, customProperties: { preAcked } })
      .catch((error: unknown) => {
        this.#logger.error({ err: error }, 'could not run a Slack request');
        if (acked) return;
        acked = true;
        this.#post({ type: 'ack', id, failed: true });
      });
    this.#inFlight.add(running);
    void running.finally(() => this.#inFlight.delete(running));
  }
}
