/**
 * The real ack thread, except that a request for /fail ends the thread at once, as an uncaught
 * failure would: a crash on demand, which the real thread gives no way to cause.
 */
import http from 'node:http';
import { syncBuiltinESMExports } from 'node:module';

const createServer = http.createServer;
http.createServer = ((handler: http.RequestListener) =>
  createServer((req, res) => {
    if (req.url === '/fail') process.exit(70);
    handler(req, res);
  })) as typeof http.createServer;
syncBuiltinESMExports();
await import('../../src/slack/ackThread.ts');
