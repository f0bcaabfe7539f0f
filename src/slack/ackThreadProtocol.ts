/** What the ack thread (ackThread.ts) and the main thread (ackThreadReceiver.ts) tell each other. */

export interface AckThreadOptions {
  /** 0 picks a free port. */
  port: number;
  /** The path Slack posts to. */
  endpoint: string;
  signingSecret: string;
  /** The main thread's server for every other path, on 127.0.0.1. */
  routesPort: number;
  /** How long a delivery that needs the listener's answer waits for it (Bolt's limit). */
  unansweredMs: number;
  /** The slash command the app answers: another is left to Bolt, which answers it 404 as unhandled. */
  command: string;
  /** Starts held (see `hold`): a thread started again while the bot stops. */
  held: boolean;
  /** Random per process: the routes' socket trusts a forwarded address only with it. */
  peerToken: string;
}

/** From the ack thread. */
export type ThreadMessage =
  | { type: 'listening'; port: number }
  | { type: 'failed'; message: string }
  /** `preAcked`: Slack already has its empty answer; otherwise the main thread sends one as an `ack`. */
  | {
      type: 'delivery';
      id: number;
      body: Record<string, unknown>;
      preAcked: boolean;
      retryNum: number | undefined;
      retryReason: string | undefined;
    }
  | { type: 'log'; level: 'warn' | 'error'; message: string }
  | { type: 'holding' }
  | { type: 'closed' };

/** From the main thread. */
export type MainMessage =
  | { type: 'ack'; id: number; response?: unknown; failed?: boolean }
  /** Stop answering at once: from now on the listeners answer, saying the bot is restarting. */
  | { type: 'hold' }
  | { type: 'close' };

/**
 * The address a passed-through request came from, after the process's peer token, set by the ack
 * thread (any copy a client sent is replaced). Read only on the main thread's loopback port.
 */
export const forwardedPeerHeader = 'x-faultline-peer';

/** Headers of one HTTP connection (RFC 9110 §7.6.1), never passed on by a proxy. */
export const hopByHopHeaders = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/**
 * Deliveries whose answer is always empty: every listener of these acks first and replies later
 * (the response_url, a modal, a message). Modal submissions and options requests carry their
 * answer in the ack, so they wait for the listener.
 */
export function answersAtOnce(body: Record<string, unknown>, command: string): boolean {
  if (typeof body['command'] === 'string') return body['command'] === command;
  return (
    body['type'] === 'block_actions' ||
    body['type'] === 'message_action' ||
    body['type'] === 'shortcut' ||
    body['type'] === 'event_callback'
  );
}
