import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestContext, type TestContext } from '../support/context.js';
import { WEB_DIST } from '../../src/dashboard/dashboard.build.js';
import { snapshot } from './support/snapshot.js';

/**
 * The routes the OpenAPI fuzz cannot see (hidden from the document): GET /metrics (docs/contract/running.md#metrics) and the
 * dashboard's static routes (docs/contract/dashboard.md#dashboard). Hostile requests to them: never a 5xx, errors are envelopes, no file
 * outside web/dist is ever served, and nothing is written.
 */
let t: TestContext;
let port: number;
let key: string;

beforeAll(async () => {
  t = await createTestContext({}, { worker: false });
  key = (await t.merchant()).key;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => { await t?.close(); });

/** One request over a socket with the path exactly as given: no client resolves `..` or re-encodes it. */
function raw(path: string, headers: Record<string, string> = {}): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let text = '';
    s.on('data', (d) => { text += d.toString('latin1'); });
    s.on('end', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0), head, body });
    });
    s.on('error', reject);
    const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    s.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n${extra}\r\n`);
  });
}

const envelope = (body: string) => {
  const b = JSON.parse(body);
  return Object.keys(b).sort().join(',') === 'error,message,success' && b.success === false;
};

describe('routes outside the OpenAPI document', () => {
  it('GET /metrics: 401 envelope without the metrics or admin token (an API key is not one), text with it; other methods 404', async () => {
    const before = await snapshot(t.pool);
    for (const authorization of [undefined, '', 'Bearer', `Bearer ${key}`, `Basic ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}x`, `Bearer ${ADMIN_TOKEN.slice(0, -1)}`, 'Bearer \u0000', `Bearer ${'a'.repeat(10_000)}`]) {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: authorization === undefined ? {} : { authorization } });
      expect([res.statusCode, res.json().error], String(authorization).slice(0, 30)).toEqual([401, 'UNAUTHORIZED']);
      expect(envelope(res.body)).toBe(true);
    }
    const ok = await t.app.inject({ method: 'GET', url: '/metrics?__proto__=x&a[b]=c', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(ok.statusCode).toBe(200);
    expect(String(ok.headers['content-type'])).toMatch(/^text\/plain/);
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: '{' });
      expect([res.statusCode, res.json().error], method).toEqual([404, 'NOT_FOUND']);
    }
    expect(await snapshot(t.pool)).toEqual(before);
  });

  it('the dashboard never serves a file outside web/dist, whatever the path, and never answers 5xx', async () => {
    const before = await snapshot(t.pool);
    const paths = [
      '/dashboard/assets/..', '/dashboard/assets/../../package.json', '/dashboard/assets/..%2f..%2fpackage.json', '/dashboard/assets/%2e%2e/%2e%2e/package.json',
      '/dashboard/assets/..%5c..%5cpackage.json', '/dashboard/../package.json', '/dashboard/%2e%2e/%2e%2e/package.json', '/dashboard/assets/%00',
      '/dashboard/assets/x.js%00.html', '/dashboard/assets/.', '/dashboard/assets/', '/dashboard/assets//etc/passwd', '/dashboard//etc/passwd',
      '/dashboard/assets/%ZZ', '/dashboard/%', '/dashboard/assets/..%00', `/dashboard/assets/${'a'.repeat(5000)}.js`, '/dashboard/invite/../../package.json',
      '/dashboard/assets/....//....//package.json', '/dashboard/.env', '/dashboard/assets/.env', '/dashboard/index.html/..',
    ];
    for (const path of paths) {
      const res = await raw(path);
      expect(res.status, path).toBeGreaterThanOrEqual(200);
      expect(res.status, path).toBeLessThan(500);
      // package.json, /etc/passwd, a .env or a directory listing: nothing from outside the built app.
      expect(res.body, path).not.toMatch(/"devDependencies"|root:x:0|DATABASE_URL|Index of/);
      if (res.status >= 400) expect(envelope(res.body), `${path}: ${res.body.slice(0, 120)}`).toBe(true);
    }
    // The same socket client does reach files that are there: the checks above are not vacuous.
    const asset = readdirSync(join(WEB_DIST, 'assets'))[0]!;
    expect((await raw(`/dashboard/assets/${asset}`)).status).toBe(200);
    const app = await raw('/dashboard/charges');
    expect([app.status, /content-type: text\/html/i.test(app.head)]).toEqual([200, true]);
    expect(await snapshot(t.pool)).toEqual(before);
  });
});

describe('the payer-side locations (docs/contract/due-date-charges.md#payer-payload), outside the OpenAPI document', () => {
  it('hostile tokens, DPP and codMun: never a 5xx, errors in BACEN\'s Problema (or the envelope of a routing error), nothing written', async () => {
    // The signing key is made on first use: make it before the snapshot.
    expect((await raw('/pix/v2/jwks')).status).toBe(200);
    const before = await snapshot(t.pool);
    const token = 'A'.repeat(32);
    const paths = [
      `/pix/v2/cobv/${token}`, `/pix/v2/cobv/${token}?DPP=2026-02-30`, `/pix/v2/cobv/${token}?DPP=%00`, `/pix/v2/cobv/${token}?DPP[]=1`,
      `/pix/v2/cobv/${token}?DPP=9999-12-31&codMun=1234567`, `/pix/v2/cobv/${token}?codMun=${'9'.repeat(5000)}`, `/pix/v2/cobv/${token}?__proto__=x`,
      '/pix/v2/cobv/%00', '/pix/v2/cobv/..%2f..%2fetc%2fpasswd', '/pix/v2/cobv/%ZZ', `/pix/v2/cobv/${'a'.repeat(5000)}`, "/pix/v2/cobv/'%20OR%201=1%20--",
      '/pix/v2/cobv/', '/pix/v2/jwks?x=%00', '/pix/v2/jwks/..', '/pix/v2/rec/x',
    ];
    for (const path of paths) {
      const res = await raw(path);
      expect(res.status, path).toBeGreaterThanOrEqual(200);
      expect(res.status, path).toBeLessThan(500);
      if (res.status >= 400) {
        const problem = /content-type: application\/problem\+json/i.test(res.head);
        expect(problem || envelope(res.body), `${path}: ${res.body.slice(0, 120)}`).toBe(true);
      }
    }
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: `/pix/v2/cobv/${token}` });
      expect([res.statusCode, res.json().error], method).toEqual([404, 'NOT_FOUND']);
    }
    expect(await snapshot(t.pool)).toEqual(before);
  });
});
