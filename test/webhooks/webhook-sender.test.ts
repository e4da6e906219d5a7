import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendWebhook, type SendRequest } from '../../src/webhooks/webhook.client.js';
import type { Resolver } from '../../src/webhooks/webhook-url.rules.js';

interface Hit {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

let server: http.Server;
let port = 0;
let hits: Hit[] = [];
let connections = 0;
let hugeBytesWritten = 0;
let hugeClosed = false;

const routes: Record<string, (res: http.ServerResponse) => void> = {
  '/ok': (res) => res.writeHead(200).end('ok'),
  '/no-content': (res) => res.writeHead(204).end(),
  '/fail': (res) => res.writeHead(500).end('boom'),
  '/missing': (res) => res.writeHead(404).end('no such hook'),
  '/redirect': (res) => res.writeHead(302, { Location: `http://127.0.0.1:${port}/target` }).end(),
  '/target': (res) => res.writeHead(200).end(),
  '/slow': (res) => {
    const t = setTimeout(() => res.writeHead(200).end(), 2000);
    res.on('close', () => clearTimeout(t));
  },
  '/headers-then-stall': (res) => res.writeHead(200).write('partial'),
  '/huge': (res) => {
    // 5 MiB, written with backpressure; stops as soon as the client goes away.
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    res.writeHead(200, { 'Content-Length': String(5 * 1024 * 1024) });
    res.on('close', () => (hugeClosed = true));
    const pump = (): void => {
      while (hugeBytesWritten < 5 * 1024 * 1024 && !res.destroyed) {
        hugeBytesWritten += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  },
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      hits.push({ method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks) });
      res.on('error', () => {});
      (routes[path.split('?')[0] ?? ''] ?? routes['/ok']!)(res);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  hits = [];
  connections = 0;
});

const send = (path: string, extra: Partial<SendRequest> = {}) =>
  sendWebhook({
    url: `http://127.0.0.1:${port}${path}`,
    body: '{"id":"evt_1"}',
    headers: { 'Content-Type': 'application/json' },
    timeoutMs: 2000,
    allowPrivate: true,
    ...extra,
  });

describe('sendWebhook outcomes', () => {
  it('2xx is success', async () => {
    const r = await send('/ok');
    expect(r).toMatchObject({ statusCode: 200, success: true, error: null, retryable: false });
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect((await send('/no-content')).success).toBe(true);
  });

  it('5xx is a retryable failure', async () => {
    expect(await send('/fail')).toMatchObject({ statusCode: 500, success: false, error: 'http 500', retryable: true });
  });

  it('4xx is a failure that is not retried', async () => {
    expect(await send('/missing')).toMatchObject({ statusCode: 404, success: false, error: 'http 404', retryable: false });
  });

  it('3xx is not followed, and retried', async () => {
    const r = await send('/redirect');
    expect(r).toMatchObject({ statusCode: 302, success: false, error: 'redirect not followed (302)', retryable: true });
    expect(hits.map((h) => h.path)).toEqual(['/redirect']);
  });

  it('a receiver slower than timeoutMs is a retryable timeout', async () => {
    const r = await send('/slow', { timeoutMs: 300 });
    expect(r).toMatchObject({ statusCode: null, success: false, error: 'timeout after 300 ms', retryable: true });
    expect(r.durationMs).toBeGreaterThanOrEqual(290);
    expect(r.durationMs).toBeLessThan(1500);
  });

  it('a status that arrived in time stands even if the body then stalls', async () => {
    const r = await send('/headers-then-stall', { timeoutMs: 300 });
    expect(r).toMatchObject({ statusCode: 200, success: true, error: null });
    expect(r.durationMs).toBeLessThan(1500);
  });

  it('a resolver that never answers is cut by the same timeout', async () => {
    const hanging: Resolver = () => new Promise(() => {});
    const r = await send('/ok', { url: `http://hook.test:${port}/ok`, resolver: hanging, timeoutMs: 200 });
    expect(r).toMatchObject({ statusCode: null, success: false, error: 'timeout after 200 ms', retryable: true });
  });

  it('connection refused is retryable', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const r = await sendWebhook({ url: `http://127.0.0.1:${closedPort}/`, body: '{}', headers: {}, timeoutMs: 2000, allowPrivate: true });
    expect(r).toMatchObject({ statusCode: null, success: false, error: 'connection refused', retryable: true });
  });

  it('a DNS failure is retryable', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('queryA ESERVFAIL'), { code: 'ESERVFAIL' });
    };
    const r = await send('/ok', { url: 'https://hooks.example/', resolver: failing, allowPrivate: false });
    expect(r).toMatchObject({ statusCode: null, success: false, error: 'could not resolve hooks.example (ESERVFAIL)', retryable: true });
  });

  it('a 5 MiB response does not hang: reading stops at the cap and the status is kept', async () => {
    hugeBytesWritten = 0;
    hugeClosed = false;
    const r = await send('/huge', { timeoutMs: 5000 });
    expect(r).toMatchObject({ statusCode: 200, success: true, error: null });
    expect(r.durationMs).toBeLessThan(2000);
    await expect.poll(() => hugeClosed, { timeout: 2000 }).toBe(true);
    expect(hugeBytesWritten).toBeLessThan(5 * 1024 * 1024); // the receiver saw us hang up early
  });

  it('never throws, even on a malformed header', async () => {
    const r = await send('/ok', { headers: { 'Bad\nHeader': 'x' } });
    expect(r.success).toBe(false);
    expect(r.statusCode).toBeNull();
    expect(hits).toHaveLength(0);
  });
});

describe('sendWebhook wire format', () => {
  it('delivers the exact body bytes and the given headers with a POST', async () => {
    const body = JSON.stringify({ id: 'evt_Zx9', event: 'CHARGE_PAID', data: { payer: 'Conceição', emoji: '💸' } });
    const headers = {
      'Content-Type': 'application/json',
      'Service-Signature': `t=1795000000,v1=${'ab'.repeat(32)}`,
      'Service-Event-Id': 'evt_Zx9',
    };
    const r = await send('/ok?src=pixgate', { body, headers });
    expect(r.success).toBe(true);
    expect(hits).toHaveLength(1);
    const hit = hits[0]!;
    expect(hit.method).toBe('POST');
    expect(hit.path).toBe('/ok?src=pixgate');
    expect(hit.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers['service-signature']).toBe(headers['Service-Signature']);
    expect(hit.headers['service-event-id']).toBe('evt_Zx9');
    expect(hit.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });
});

describe('sendWebhook address pinning', () => {
  it('refuses a name that resolves to loopback, without connecting, and does not retry it', async () => {
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const r = await sendWebhook({
      url: `https://evil.example:${port}/ok`,
      body: '{}',
      headers: {},
      timeoutMs: 2000,
      allowPrivate: false,
      resolver,
    });
    expect(r).toMatchObject({ statusCode: null, success: false, retryable: false });
    expect(r.error).toBe('blocked: evil.example resolves to a non-public address');
    expect(connections).toBe(0);
    expect(hits).toHaveLength(0);
  });

  it('connects to the address the resolver returned (once), with the name in Host', async () => {
    let calls = 0;
    const resolver: Resolver = async (host) => {
      calls++;
      return host === 'hook.test' ? [{ address: '127.0.0.1', family: 4 }] : [];
    };
    const r = await send('/ok', { url: `http://hook.test:${port}/ok`, resolver });
    expect(r).toMatchObject({ statusCode: 200, success: true });
    expect(calls).toBe(1);
    expect(hits).toHaveLength(1);
    expect(hits[0]!.headers.host).toBe(`hook.test:${port}`);
  });
});

describe('sendWebhook over IPv6', () => {
  it('reaches an [::1] literal and a name pinned to ::1', async (ctx) => {
    const v6 = http.createServer((req, res) => res.end(req.headers.host ?? ''));
    const listening = await new Promise<boolean>((r) => {
      v6.once('error', () => r(false));
      v6.listen(0, '::1', () => r(true));
    });
    if (!listening) return ctx.skip(); // no IPv6 loopback on this machine
    const v6Port = (v6.address() as AddressInfo).port;
    try {
      const literal = await send('/', { url: `http://[::1]:${v6Port}/` });
      expect(literal).toMatchObject({ statusCode: 200, success: true });
      const named = await send('/', {
        url: `http://hook6.test:${v6Port}/`,
        resolver: async () => [{ address: '::1', family: 6 }],
      });
      expect(named).toMatchObject({ statusCode: 200, success: true });
    } finally {
      v6.closeAllConnections();
      await new Promise((r) => v6.close(r));
    }
  });
});

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!hasOpenssl())('sendWebhook over TLS', () => {
  it('sends the name as SNI and verifies the certificate (a self-signed one is refused)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pixgate-tls-'));
    try {
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
        '-subj', '/CN=hook.test', '-addext', 'subjectAltName=DNS:hook.test',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      ], { stdio: 'ignore' });
      const names: string[] = [];
      let requests = 0;
      const tls = https.createServer(
        {
          key: readFileSync(join(dir, 'key.pem')),
          cert: readFileSync(join(dir, 'cert.pem')),
          SNICallback: (name, cb) => {
            names.push(name);
            cb(null);
          },
        },
        (_req, res) => {
          requests++;
          res.end();
        },
      );
      await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
      const tlsPort = (tls.address() as AddressInfo).port;
      try {
        const r = await sendWebhook({
          url: `https://hook.test:${tlsPort}/`,
          body: '{}',
          headers: {},
          timeoutMs: 2000,
          allowPrivate: true,
          resolver: async () => [{ address: '127.0.0.1', family: 4 }],
        });
        expect(r).toMatchObject({ statusCode: null, success: false, retryable: true });
        expect(r.error).toMatch(/^tls error \(/);
        expect(names).toEqual(['hook.test']);
        expect(requests).toBe(0);
      } finally {
        tls.closeAllConnections();
        await new Promise((r) => tls.close(r));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sendWebhook keep-alive connections', () => {
  it('reuses one connection for sequential sends to the same receiver', async () => {
    for (let i = 0; i < 3; i++) expect((await send('/ok')).success).toBe(true);
    expect(hits).toHaveLength(3);
    expect(connections).toBeLessThanOrEqual(1); // 0 when a pooled one of an earlier test served them
  });

  it('never reuses a connection for a send whose own check gave another address (the pin holds for pooled sockets)', async () => {
    // One receiver on every loopback address, same port: which address each request came in on is its socket's.
    const seen: string[] = [];
    const any = http.createServer((req, res) => {
      seen.push(req.socket.localAddress ?? '');
      req.resume();
      req.on('end', () => res.writeHead(200).end());
    });
    let opened = 0;
    any.on('connection', () => opened++);
    await new Promise<void>((r) => any.listen(0, '0.0.0.0', r));
    const anyPort = (any.address() as AddressInfo).port;
    try {
      let address = '127.0.0.1';
      const resolver: Resolver = async () => [{ address, family: 4 }];
      const to = () => send('/', { url: `http://rebind.test:${anyPort}/`, resolver });
      expect((await to()).success).toBe(true);
      expect((await to()).success).toBe(true);
      address = '127.0.0.2'; // the name now resolves elsewhere
      expect((await to()).success).toBe(true);
      expect(seen.map((a) => a.replace(/^::ffff:/, ''))).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.2']);
      expect(opened).toBe(2); // the second send reused the first's connection; the third could not
    } finally {
      any.closeAllConnections();
      await new Promise((r) => any.close(r));
    }
  });
});
