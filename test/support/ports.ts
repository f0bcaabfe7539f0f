import { once } from 'node:events';
import { connect, createServer } from 'node:net';

/** A loopback port that was free a moment ago, for a process a test starts itself. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The first line of the answer to a raw request line sent as it is (no HTTP client would send it). */
export async function statusLine(port: number, requestLine: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.end(`${requestLine}\r\nHost: faultline\r\n\r\n`);
  let answer = '';
  for await (const chunk of socket) answer += String(chunk);
  return answer.split('\r\n')[0] ?? '';
}
