/**
 * The ack benchmark's load client, in a process of its own so that the fake Slack and the
 * simulator, busy with the app's calls, never delay the client's own timing. The parent sends a
 * LoadOrder per run and gets its LoadResult; 'stop' closes the connections and ends the process.
 */
import { runLoad, SignedSender, type Delivery, type LoadShape } from './load.ts';

export interface LoadOrder {
  url: string;
  /** Several replicas: deliveries go round robin over these instead of `url`. */
  urls?: string[];
  signingSecret: string;
  deliveries: Delivery[];
  shape: LoadShape;
}

/**
 * Senders by URL, shape name and concurrency: a shape gets as many connections as it keeps in
 * flight, and a named shape connections of its own, so that a burst of 200 opens 200 new
 * connections to every app, whatever ran before it.
 */
const senders = new Map<string, SignedSender>();

process.on('message', (message: LoadOrder | 'stop') => {
  if (message === 'stop') {
    void Promise.all([...senders.values()].map((sender) => sender.close())).finally(() =>
      process.send?.('stopped', () => process.disconnect()),
    );
    return;
  }
  const { url, urls = [url], signingSecret, deliveries, shape } = message;
  const targets = urls.map((each) => {
    const key = `${shape.name ?? ''} ${shape.concurrency} ${each}`;
    const sender = senders.get(key) ?? new SignedSender(each, signingSecret, shape.concurrency);
    senders.set(key, sender);
    return sender;
  });
  let next = 0;
  void runLoad(deliveries, (delivery) => targets[next++ % targets.length]!.send(delivery), shape).then((result) =>
    process.send?.(result),
  );
});
