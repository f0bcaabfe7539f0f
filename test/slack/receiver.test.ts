import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { startFakeSlack, type FakeSlack } from '@faultline/fake-slack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boltLogger, createLogger } from '../../src/logger.ts';
import { httpServerOptions, SocketModeRoutesReceiver } from '../../src/slack/receiver.ts';
import { statusLine } from '../support/ports.ts';

const appToken = 'xapp-1-A0FAULTLN-1-receiver-test';
let fake: FakeSlack;
beforeAll(async () => {
  fake = await startFakeSlack({ signingSecret: 'receiver-secret', botToken: 'xoxb-receiver', appToken });
});
afterAll(async () => {
  await fake?.stop();
});

/** The first line of the answer to a request whose headers never end. */
async function unfinishedHeaders(port: number): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write('GET /healthz HTTP/1.1\r\nHost: faultline\r\n');
  const [first] = (await once(socket, 'data')) as [Buffer];
  socket.destroy();
  return String(first).split('\r\n')[0] ?? '';
}

describe("Socket Mode's receiver for the HTTP routes", () => {
  it("serves Bolt's custom routes on the given host, within the bot's time limits, and closes on stop", async () => {
    const receiver = new SocketModeRoutesReceiver({
      appToken,
      logger: boltLogger(createLogger('silent')),
      customRoutes: [
        { path: '/pages/:id', method: 'GET', handler: (req, res) => res.end(`page ${req.params?.['id']}`) },
      ],
      port: 0,
      host: '127.0.0.1',
      installerOptions: { clientOptions: { slackApiUrl: fake.apiUrl } },
    });
    await receiver.start();
    try {
      const { address, port } = receiver.server.address() as AddressInfo;
      expect(address).toBe('127.0.0.1');
      expect(fake.socketConnections()).toBe(1);
      expect(await (await fetch(`http://127.0.0.1:${port}/pages/7`)).text()).toBe('page 7');
      expect((await fetch(`http://127.0.0.1:${port}/nowhere`)).status).toBe(404);
      // Bolt's listener rejects on what its URL parser cannot read: answered, and the server serves on.
      expect(await statusLine(port, 'GET //[ HTTP/1.1')).toMatch(/^HTTP\/1\.1 400 /);
      expect(await statusLine(port, 'GET /pages/%E0%A4%A HTTP/1.1')).toMatch(/^HTTP\/1\.1 400 /);
      expect((await fetch(`http://127.0.0.1:${port}/pages/8`)).status).toBe(200);
      // A client that never ends its headers has seconds, not Node's five minutes.
      const started = Date.now();
      expect(await unfinishedHeaders(port)).toMatch(/^HTTP\/1\.1 408 /);
      expect(Date.now() - started).toBeLessThan(
        httpServerOptions.headersTimeout! + 2 * httpServerOptions.connectionsCheckingInterval!,
      );
    } finally {
      await receiver.stop();
    }
    expect(receiver.server.listening).toBe(false);
  });
});
