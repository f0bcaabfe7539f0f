import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { BotResponse } from './bot-link.ts';

/** The three kinds of Socket Mode envelope, one per way Slack would otherwise POST to the app. */
export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

/** Slack's deadline for acknowledging an envelope. */
export const ACK_DEADLINE_MS = 3000;

interface PendingAck {
  connection: WebSocket;
  resolve: (response: BotResponse) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Slack's side of Socket Mode: issues single-use WebSocket URLs (apps.connections.open), greets
 * each connection with `hello`, sends envelopes and waits for the ack with the same envelope_id.
 */
export class SocketModeLink {
  /** `ws://127.0.0.1:<port>`, known once the fake Slack listens. */
  baseUrl = '';
  private readonly appId: string;
  private readonly appToken: string;
  private readonly ackDeadlineMs: number;
  private readonly server = new WebSocketServer({ noServer: true });
  private readonly tickets = new Set<string>();
  private readonly connections: WebSocket[] = [];
  private readonly pending = new Map<string, PendingAck>();

  constructor(options: { appId: string; appToken: string; ackDeadlineMs: number }) {
    this.appId = options.appId;
    this.appToken = options.appToken;
    this.ackDeadlineMs = options.ackDeadlineMs;
  }

  /** Whether `token` is the app-level token apps.connections.open takes. */
  accepts(token: unknown): boolean {
    return token === this.appToken;
  }

  /** A WebSocket URL that admits one connection. */
  issueUrl(): string {
    const ticket = randomBytes(16).toString('hex');
    this.tickets.add(ticket);
    return `${this.baseUrl}/link/?ticket=${ticket}&app_id=${this.appId}`;
  }

  /** Takes over an HTTP upgrade request; refuses paths and tickets it did not issue. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== '/link/' || !this.tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    this.server.handleUpgrade(request, socket, head, (connection) => this.accept(connection));
  }

  get openConnections(): number {
    return this.open().length;
  }

  /**
   * Sends one envelope on the newest connection and resolves with the ack, shaped as the HTTP
   * answer would be: status 200 and the ack's payload as the body (none when it is empty).
   */
  deliver(
    type: EnvelopeType,
    payload: Record<string, unknown>,
    retry?: { attempt: number; reason: string },
  ): Promise<BotResponse> {
    const connection = this.open().at(-1);
    if (connection === undefined) return Promise.reject(new Error('No Socket Mode connection is open'));
    const envelopeId = randomUUID();
    const interactionType = payload['type'];
    const envelope = {
      envelope_id: envelopeId,
      type,
      payload,
      accepts_response_payload:
        type === 'slash_commands' || interactionType === 'view_submission' || interactionType === 'block_suggestion',
      // Slack numbers every events_api delivery; the others carry the fields only when retried.
      ...(type === 'events_api' || retry !== undefined
        ? { retry_attempt: retry?.attempt ?? 0, retry_reason: retry?.reason ?? '' }
        : {}),
    };
    const described = typeof interactionType === 'string' ? `${type} (${interactionType})` : type;
    return new Promise<BotResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(envelopeId);
        reject(new Error(`The app did not acknowledge the ${described} envelope within ${this.ackDeadlineMs} ms`));
      }, this.ackDeadlineMs);
      this.pending.set(envelopeId, { connection, resolve, reject, timer });
      connection.send(JSON.stringify(envelope));
    });
  }

  /** Closes every connection; deliveries still waiting for an ack fail. */
  close(): void {
    for (const connection of [...this.connections]) connection.terminate();
    this.server.close();
  }

  /** Connections that can take an envelope: not those closing, whose close handshake is under way. */
  private open(): WebSocket[] {
    return this.connections.filter((connection) => connection.readyState === connection.OPEN);
  }

  private accept(connection: WebSocket): void {
    this.connections.push(connection);
    connection.on('message', (data, isBinary) => {
      if (!isBinary) this.acknowledge(String(data));
    });
    connection.on('close', () => {
      this.connections.splice(this.connections.indexOf(connection), 1);
      for (const [envelopeId, waiting] of this.pending) {
        if (waiting.connection !== connection) continue;
        this.settle(envelopeId, waiting);
        waiting.reject(new Error('The Socket Mode connection closed before the app acknowledged the envelope'));
      }
    });
    connection.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.open().length,
        debug_info: { host: 'fake-slack-link', build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: this.appId },
      }),
    );
  }

  private acknowledge(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message === null || typeof message !== 'object') return;
    const { envelope_id: envelopeId, payload } = message as { envelope_id?: unknown; payload?: unknown };
    if (typeof envelopeId !== 'string') return;
    const waiting = this.pending.get(envelopeId);
    // An ack for an envelope that already timed out comes too late, and Slack ignores it too.
    if (waiting === undefined) return;
    this.settle(envelopeId, waiting);
    // The SDKs always send a payload object; an empty one is an ack with an empty HTTP body.
    const empty =
      payload === undefined || (typeof payload === 'object' && payload !== null && Object.keys(payload).length === 0);
    waiting.resolve({ status: 200, body: empty ? undefined : payload });
  }

  private settle(envelopeId: string, waiting: PendingAck): void {
    clearTimeout(waiting.timer);
    this.pending.delete(envelopeId);
  }
}
