import { slackSignature } from './signature.ts';

/** The bot's HTTP answer to one delivery; `body` is parsed JSON, plain text, or undefined when empty. */
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

/** Posts signed requests to the bot's request URL, the way Slack delivers them. */
export class BotLink {
  url: string | undefined;
  private readonly signingSecret: string;
  private last: { rawBody: string; contentType: RequestContentType; retries: number } | undefined;

  constructor(signingSecret: string) {
    this.signingSecret = signingSecret;
  }

  deliver(rawBody: string, options: DeliveryOptions): Promise<BotResponse> {
    this.last = { rawBody, contentType: options.contentType, retries: options.retryNum ?? 0 };
    return this.send(rawBody, options);
  }

  private async send(rawBody: string, options: DeliveryOptions): Promise<BotResponse> {
    if (this.url === undefined) throw new Error('The bot URL is not set: call setBotUrl() first');
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
      headers['x-slack-retry-reason'] = options.retryReason ?? 'http_timeout';
    }
    const response = await fetch(this.url, { method: 'POST', headers, body: rawBody });
    return { status: response.status, body: parseBody(await response.text(), response.headers.get('content-type')) };
  }

  deliverJson(body: unknown): Promise<BotResponse> {
    return this.deliver(JSON.stringify(body), { contentType: 'application/json' });
  }

  deliverForm(fields: Record<string, string>): Promise<BotResponse> {
    return this.deliver(new URLSearchParams(fields).toString(), { contentType: 'application/x-www-form-urlencoded' });
  }

  /** Interactive payloads travel as one form field, `payload`, holding JSON. */
  deliverPayload(payload: Record<string, unknown>): Promise<BotResponse> {
    return this.deliverForm({ payload: JSON.stringify(payload) });
  }

  /**
   * Sends the last delivery again with the same body and a fresh signature: as Slack's retry
   * (`x-slack-retry-num` counting up, reason `http_timeout`) or as a plain duplicate delivery.
   */
  redeliverLast(as: 'retry' | 'duplicate'): Promise<BotResponse> {
    const last = this.last;
    if (last === undefined) throw new Error('Nothing has been delivered to the bot yet');
    if (as === 'duplicate') return this.send(last.rawBody, { contentType: last.contentType });
    last.retries += 1;
    return this.send(last.rawBody, { contentType: last.contentType, retryNum: last.retries });
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
