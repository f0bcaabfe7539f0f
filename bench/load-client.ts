/**
 * The ack benchmark's load client, in a process of its own so that the fake Slack and the
 * simulator, busy with the app's calls, never delay the client's own timing. The parent sends a
 * LoadOrder per run and gets its LoadResult; 'stop' closes the connections and ends the process.
 */
import { runLoad, SignedSender, type Delivery, type LoadShape } from './load.ts';

export interface LoadOrder {
  url: string;
  signingSecret: string;
  deliveries: Delivery[];
  shape: LoadShape;
}

const senders = new Map<string, SignedSender>();

process.on('message', (message: LoadOrder | 'stop') => {
  if (message === 'stop') {
    void Promise.all([...senders.values()].map((sender) => sender.close())).finally(() => process.send?.('stopped', () => process.disconnect()));
    return;
  }
  const { url, signingSecret, deliveries, shape } = message;
  const sender = senders.get(url) ?? new SignedSender(url, signingSecret, shape.concurrency);
  senders.set(url, sender);
  void runLoad(deliveries, (delivery) => sender.send(delivery), shape).then((result) => process.send?.(result));
});
