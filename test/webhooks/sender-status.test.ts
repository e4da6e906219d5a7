import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendWebhook } from '../../src/webhooks/webhook.client.js';

// A raw socket server: node:http cannot be made to answer a status below 100, but a receiver can.
let server: net.Server;
let port = 0;
beforeAll(async () => {
  server = net.createServer((socket) => {
    socket.once('data', (chunk) => {
      const status = /POST \/(\d+)/.exec(chunk.toString())?.[1] ?? '200';
      socket.end(`HTTP/1.1 ${status} X\r\nContent-Length: 0\r\n\r\n`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => { await new Promise((r) => server.close(r)); });

it.each(['000', '099'])('treats status %s as an invalid, retryable answer with no status code', async (status) => {
  const result = await sendWebhook({ url: `http://127.0.0.1:${port}/${status}`, body: '{}', headers: {}, timeoutMs: 2000, allowPrivate: true });
  expect(result).toMatchObject({ statusCode: null, success: false, error: 'invalid http response', retryable: true });
});

it('keeps a three-digit status outside the known classes as a retryable failure', async () => {
  const result = await sendWebhook({ url: `http://127.0.0.1:${port}/999`, body: '{}', headers: {}, timeoutMs: 2000, allowPrivate: true });
  expect(result).toMatchObject({ statusCode: 999, success: false, error: 'http 999', retryable: true });
});
