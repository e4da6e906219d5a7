// Security review items of issue 11 in the webhook path: Azure's platform address is never a delivery
// target, and a delivery's recorded error never names the internal address a merchant's host resolved to.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isForbiddenAddress } from '../../src/webhooks/address-policy.rules.js';
import { sendWebhook } from '../../src/webhooks/webhook.client.js';
import type { Resolver } from '../../src/webhooks/webhook-url.rules.js';

describe('blocked addresses', () => {
  it('168.63.129.16 (Azure wireserver) is blocked, plain and v4-mapped; its neighbours are not', () => {
    for (const ip of ['168.63.129.16', '::ffff:168.63.129.16', '::ffff:a83f:8110']) expect(isForbiddenAddress(ip), ip).toBe(true);
    for (const ip of ['168.63.129.15', '168.63.129.17', '168.63.128.16']) expect(isForbiddenAddress(ip), ip).toBe(false);
  });
});

describe('delivery error texts', () => {
  const send = (resolver: Resolver, port = 443) =>
    sendWebhook({ url: `https://hook.example:${port}/x`, body: '{}', headers: {}, timeoutMs: 3000, allowPrivate: false, resolver });

  it('a host resolving inside the network is recorded as blocked without the address', async () => {
    for (const address of ['10.20.30.40', '168.63.129.16', '169.254.169.254', 'fd00::1234']) {
      const r = await send(async () => [{ address, family: address.includes(':') ? 6 : 4 }]);
      expect(r).toMatchObject({ success: false, retryable: false, error: 'blocked: hook.example resolves to a non-public address' });
      expect(r.error).not.toContain(address);
    }
  });

  it('a network failure at a public address does not name it either', async () => {
    // A port where nothing listens, reached through an address the policy lets through only with allowPrivate.
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const r = await sendWebhook({
      url: `http://hook.example:${port}/x`, body: '{}', headers: {}, timeoutMs: 3000, allowPrivate: true,
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(r.success).toBe(false);
    expect(r.error).not.toMatch(/127\.0\.0\.1/);
  });
});
