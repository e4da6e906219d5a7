import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => t?.close());

describe('the dashboard is served by the API process (docs/contract/dashboard.md#dashboard)', () => {
  it('GET / redirects to /dashboard', async () => {
    const res = await t.request('GET', '/');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/dashboard');
  });

  it('every client route loads index.html, never cached, framed by nobody', async () => {
    for (const path of ['/dashboard', '/dashboard/', '/dashboard/charges', '/dashboard/charges/chg_abc', '/dashboard/invite/abc.DEF-123_x']) {
      const res = await t.request('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.raw).toContain('<div id="root"></div>');
    }
  });

  it('hashed assets are cached for a year; an unknown asset is the API 404', async () => {
    const index = await t.request('GET', '/dashboard');
    const asset = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(index.raw)?.[1];
    expect(asset).toBeDefined();
    const res = await t.request('GET', asset!);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toMatch(/max-age=31536000.*immutable/);
    const missing = await t.request('GET', '/dashboard/assets/missing-abc.js');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'NOT_FOUND', message: 'Route not found', success: false });
    expect((await t.request('GET', '/dashboard/../package.json')).status).not.toBe(200);
  });

  it('stays out of the OpenAPI document and other methods are 404', async () => {
    const doc = await t.request('GET', '/openapi.json');
    expect(Object.keys(doc.body.paths).filter((p) => p === '/' || p.startsWith('/dashboard'))).toEqual([]);
    expect((await t.request('POST', '/dashboard')).status).toBe(404);
    expect((await t.request('DELETE', '/dashboard/charges')).status).toBe(404);
  });
});
