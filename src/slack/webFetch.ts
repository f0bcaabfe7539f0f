import { STATUS_CODES } from 'node:http';
import { Agent, request } from 'undici';

/**
 * The fetch the Slack Web API clients are given: the same request over undici's own client on
 * kept-alive connections, answered with the few parts of a Response the clients read (status,
 * headers, url, text and arrayBuffer). Node's fetch builds web streams, a Request and a Response
 * for every call; for a small JSON answer that was most of a Web API call's CPU. A body other than
 * form text (a file upload's FormData) still goes through Node's fetch.
 */
export function slackFetch(options: { connectionsPerOrigin?: number } = {}): typeof fetch {
  const agent = new Agent({ connections: options.connectionsPerOrigin ?? 32, keepAliveTimeout: 30_000 });
  const slackFetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const body = init.body;
    if (
      input instanceof Request ||
      (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof URLSearchParams))
    )
      return fetch(input, init);
    const url = String(input);
    const answer = await request(url, {
      dispatcher: agent,
      method: (init.method ?? 'GET') as 'GET',
      headers: headerRecord(init.headers),
      body: body === undefined || body === null ? null : String(body),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    const bytes = Buffer.from(await answer.body.arrayBuffer());
    return answered(url, answer.statusCode, answer.headers, bytes);
  };
  return slackFetch as typeof fetch;
}

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  return headers as Record<string, string>;
}

/** What the Web API client reads of a Response. */
function answered(
  url: string,
  status: number,
  raw: Record<string, string | string[] | undefined>,
  bytes: Buffer,
): Response {
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(raw))
    if (value !== undefined) headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
  return {
    url,
    status,
    statusText: STATUS_CODES[status] ?? '',
    ok: status >= 200 && status < 300,
    headers: {
      get: (name: string) => headers.get(name.toLowerCase()) ?? null,
      has: (name: string) => headers.has(name.toLowerCase()),
      entries: () => headers.entries(),
    },
    text: async () => bytes.toString('utf8'),
    json: async () => JSON.parse(bytes.toString('utf8')) as unknown,
    arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  } as unknown as Response;
}

/** The process's Web API connections: every Slack client shares them. */
export const webApiFetch = slackFetch();
