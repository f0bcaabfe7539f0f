import { slackSignature } from './signature.ts';
import type { EnvelopeType, SocketModeLink } from './socket-mode.ts';

/** The bot's answer to one delivery; `body` is parsed JSON, plain text, or undefined when empty. Over a socket, the ack's payload with status 200. */
export interface BotResponse {
  status: number;
  body: unknown;
}

export type RequestContentType = 'application/json' | 'application/x-www-form-urlencoded';

export interface DeliveryOptions {
  contentType: RequestContentType;
  /** `bad` signs with another secret, `missing` sends no signature headers. */
  signature?: 'valid' | 'bad' | 'missing';
  /** Seconds since the epoch to sign with; a value over five minutes old is stale. */
  timestamp?: number;
  retryNum?: number;
  retryReason?: string;
}

/** One thing Slack tells the app, before it is encoded for HTTP or wrapped in an envelope. */
interface Delivery {
  type: EnvelopeType;
  payload: Record<string, unknown>;
}

type LastDelivery = { retries: number } & (
  | { delivery: Delivery }
  | { rawBody: string; contentType: RequestContentType }
);

const RETRY_REASON = 'http_timeout';

/**
 * Delivers to the bot the way Slack does: over an open Socket Mode connection when there is one,
 * otherwise as signed requests to the bot's request URL.
 */
export class BotLink {
  url: string | undefined;
  socket: SocketModeLink | undefined;
  private readonly signingSecret: string;
  private last: LastDelivery | undefined;

  constructor(signingSecret: string) {
    this.signingSecret = signingSecret;
  }

  /** A slash command: form fields over HTTP, the same fields as the `slash_commands` payload. */
  command(fields: Record<string, string>): Promise<BotResponse> {
    return this.deliver({ type: 'slash_commands', payload: fields });
  }

  /** An interaction: one form field, `payload`, holding JSON over HTTP; an `interactive` envelope over a socket. */
  interaction(payload: Record<string, unknown>): Promise<BotResponse> {
    return this.deliver({ type: 'interactive', payload });
  }

  /** An Events API `event_callback`: a JSON body over HTTP, an `events_api` envelope over a socket. */
  event(callback: Record<string, unknown>): Promise<BotResponse> {
    return this.deliver({ type: 'events_api', payload: callback });
  }

  /** An event delivered again as Slack's retry number `attempt` (reason `http_timeout`). */
  redeliverEvent(callback: Record<string, unknown>, attempt: number): Promise<BotResponse> {
    return this.send({ type: 'events_api', payload: callback }, { attempt, reason: RETRY_REASON });
  }

  /** A raw body, always over HTTP, for signature and encoding tests. */
  post(rawBody: string, options: DeliveryOptions): Promise<BotResponse> {
    this.last = { rawBody, contentType: options.contentType, retries: options.retryNum ?? 0 };
    return this.postSigned(rawBody, options);
  }

  /**
   * Sends the last delivery again: as Slack's retry (`x-slack-retry-num` or `retry_attempt`
   * counting up, reason `http_timeout`) or as a plain duplicate without retry fields. Over a
   * socket the envelope gets a new envelope_id, as each delivery needs its own ack.
   */
  redeliverLast(as: 'retry' | 'duplicate'): Promise<BotResponse> {
    const last = this.last;
    if (last === undefined) throw new Error('Nothing has been delivered to the bot yet');
    if (as === 'retry') last.retries += 1;
    const retry = as === 'retry' ? { attempt: last.retries, reason: RETRY_REASON } : undefined;
    if ('delivery' in last) return this.send(last.delivery, retry);
    return this.postSigned(last.rawBody, {
      contentType: last.contentType,
      ...(retry ? { retryNum: retry.attempt, retryReason: retry.reason } : {}),
    });
  }

  private deliver(delivery: Delivery): Promise<BotResponse> {
    this.last = { delivery, retries: 0 };
    return this.send(delivery);
  }

  private send(delivery: Delivery, retry?: { attempt: number; reason: string }): Promise<BotResponse> {
    if (this.socket !== undefined && this.socket.openConnections > 0)
      return this.socket.deliver(delivery.type, delivery.payload, retry);
    const { rawBody, contentType } = httpEncoding(delivery);
    return this.postSigned(rawBody, {
      contentType,
      ...(retry ? { retryNum: retry.attempt, retryReason: retry.reason } : {}),
    });
  }

  private async postSigned(rawBody: string, options: DeliveryOptions): Promise<BotResponse> {
    if (this.url === undefined) {
      throw new Error(
        this.socket === undefined
          ? 'The bot URL is not set: call setBotUrl() first'
          : 'No Socket Mode connection is open and the bot URL is not set',
      );
    }
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = { 'content-type': options.contentType };
    const signature = options.signature ?? 'valid';
    if (signature !== 'missing') {
      const secret = signature === 'valid' ? this.signingSecret : `not-${this.signingSecret}`;
      headers['x-slack-request-timestamp'] = String(timestamp);
      headers['x-slack-signature'] = slackSignature(secret, timestamp, rawBody);
    }
    if (options.retryNum !== undefined) {
      headers['x-slack-retry-num'] = String(options.retryNum);
      headers['x-slack-retry-reason'] = options.retryReason ?? RETRY_REASON;
    }
    const response = await fetch(this.url, { method: 'POST', headers, body: rawBody });
    return { status: response.status, body: parseBody(await response.text(), response.headers.get('content-type')) };
  }
}

function httpEncoding({ type, payload }: Delivery): { rawBody: string; contentType: RequestContentType } {
  switch (type) {
    case 'slash_commands':
      return {
        rawBody: new URLSearchParams(payload as Record<string, string>).toString(),
        contentType: 'application/x-www-form-urlencoded',
      };
    case 'interactive':
      return {
        rawBody: new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
        contentType: 'application/x-www-form-urlencoded',
      };
    case 'events_api':
      return { rawBody: JSON.stringify(payload), contentType: 'application/json' };
  }
}

function parseBody(text: string, contentType: string | null): unknown {
  if (text === '') return undefined;
  if (contentType?.includes('json') === true) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
