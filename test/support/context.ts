import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { createPool } from '../../src/platform/db.js';
import { withDatabaseName } from '../../src/platform/database.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { buildHttp, createRuntime, runWorker } from '../../src/composition.js';
import type { Runtime } from '../../src/runtime.js';

export const ADMIN_TOKEN = 'test-admin-token-of-at-least-32-characters';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: LightMyRequestResponse['headers'];
  raw: string;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  payload?: string;
  headers?: Record<string, string>;
}

export interface TestUser {
  id: string;
  email: string;
  password: string;
  /** The session JWT; `cookie` is the same session as the browser's Set-Cookie. */
  token: string;
  cookie: string;
}

export interface TestContext {
  rt: Runtime;
  app: FastifyInstance;
  pool: pg.Pool;
  request(method: string, url: string, opts?: RequestOptions): Promise<Reply>;
  admin(method: string, url: string, body?: unknown): Promise<Reply>;
  /** A merchant (KYC approved, PIX key on file unless overridden) and an API key for it. */
  merchant(fields?: Record<string, unknown>): Promise<{ id: string; key: string; keyId: string }>;
  /**
   * A dashboard user of the merchant (invited by the operator, invitation accepted) and a session token
   * (JWT) from POST /auth/login; pass it as `key`. Default role OWNER, a random e-mail.
   */
  user(merchantId: string, role?: string, o?: { email?: string; password?: string }): Promise<TestUser>;
  /** Asserts the ledger's invariants; every money test calls it last. */
  assertLedger(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A fresh database cloned from the migrated template, the app on it, and its worker. `databaseUrl` maps the
 * database's URL to the one the app's pool connects to (a proxy the test can cut, support/db-proxy.ts).
 */
export async function createTestContext(
  env: Record<string, string> = {}, opts: { worker?: boolean; databaseUrl?: (url: string) => string } = {},
): Promise<TestContext> {
  const serverUrl = inject('serverUrl');
  const dbName = `${inject('templateDb')}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName} TEMPLATE ${inject('templateDb')}`);
  await admin.end();

  const config: Config = loadConfig({
    ADMIN_TOKEN,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    RATE_LIMIT_PER_SECOND: '0',
    ...env,
  }, { dataDir: mkdtempSync(join(tmpdir(), 'pixgate-test-')) });
  const dbUrl = withDatabaseName(serverUrl, dbName);
  const pool = createPool(opts.databaseUrl ? opts.databaseUrl(dbUrl) : dbUrl, 20);
  const rt = createRuntime(config, pool);
  const app = await buildHttp(rt);
  const worker = opts.worker === false ? null : await runWorker(rt);

  const request = async (method: string, url: string, o: RequestOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    let payload = o.payload;
    if (o.body !== undefined) {
      payload = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.inject({ method: method as never, url, headers, payload });
    let body: unknown = res.body;
    try { body = res.json(); } catch { /* not JSON */ }
    return { status: res.statusCode, body, headers: res.headers, raw: res.body };
  };

  const ctx: TestContext = {
    rt,
    app,
    pool,
    request,
    admin: (method, url, body) => request(method, url, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
    async merchant(fields = {}) {
      const created = await ctx.admin('POST', '/admin/merchants', {
        userName: 'merchant', email: 'merchant@example.com',
        kyc: { status: 'APPROVED', tradeName: 'Loja Teste' },
        pixKey: { type: 'CHAVE_ALEATORIA', key: crypto.randomUUID() },
        ...fields,
      });
      if (created.status !== 201) throw new Error(`merchant create failed: ${created.raw}`);
      const key = await ctx.admin('POST', `/admin/merchants/${created.body.data.id}/api-keys`);
      return { id: created.body.data.id, key: key.body.data.key, keyId: key.body.data.id };
    },
    async user(merchantId, role = 'OWNER', o = {}) {
      const email = o.email ?? `user-${randomBytes(5).toString('hex')}@example.com`;
      const password = o.password ?? 'correct horse battery';
      const invited = await ctx.admin('POST', `/admin/merchants/${merchantId}/users`, { email, name: `${role} user`, role });
      if (invited.status !== 201) throw new Error(`user invite failed: ${invited.raw}`);
      const token = String(invited.body.data.invitation.url).split('/').pop();
      const accepted = await request('POST', `/auth/invitations/${token}/accept`, { body: { password } });
      if (accepted.status !== 200) throw new Error(`invitation accept failed: ${accepted.raw}`);
      const login = await request('POST', '/auth/login', { body: { email, password } });
      if (login.status !== 200) throw new Error(`login failed: ${login.raw}`);
      const cookie = String(login.headers['set-cookie']).split(';')[0]!;
      return { id: invited.body.data.user.id, email, password, token: login.body.data.token, cookie };
    },
    async assertLedger() {
      const problems = await verifyLedger(pool);
      if (problems.length) throw new Error(`ledger invariants broken:\n${problems.join('\n')}`);
    },
    async close() {
      await worker?.stop();
      await app.close();
      await pool.end();
      const a = new pg.Client({ connectionString: serverUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
      await a.end();
    },
  };
  return ctx;
}
