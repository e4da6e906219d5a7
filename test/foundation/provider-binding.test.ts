// docs/contract/running.md#provider-binding: a database is bound to the provider it first ran with; every command that opens it
// refuses another PIX_PROVIDER — exits non-zero, serves nothing, and names both providers. Real processes.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config.js';
import { withDatabaseName } from '../../src/platform/database.js';
import { startFakePsp, type FakePsp } from '../providers/fake-psp.js';

const dbs = [`pixgate_bind_${randomBytes(5).toString('hex')}`, `pixgate_bind_${randomBytes(5).toString('hex')}`];
const adminQuery = async (sql: string) => {
  const c = new pg.Client({ connectionString: inject('serverUrl') });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end();
  }
};
let psp: FakePsp;
beforeAll(async () => {
  psp = await startFakePsp();
  for (const db of dbs) await adminQuery(`CREATE DATABASE ${db}`);
});
afterAll(async () => {
  for (const db of dbs) await adminQuery(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  await psp?.close();
});

const freePort = () => new Promise<number>((resolve) => {
  const srv = createServer().listen(0, '127.0.0.1', () => {
    const { port } = srv.address() as { port: number };
    srv.close(() => resolve(port));
  });
});

const { ADMIN_TOKEN: _t, ENCRYPTION_KEY: _k, PIX_PROVIDER: _p, ...inherited } = process.env;
const dataDir = mkdtempSync(join(tmpdir(), 'pixgate-bind-'));
const READY = /listening on|worker running/;

/**
 * Runs `pixgate <args>` against `db` with the provider's settings; a command that comes up (serves, or
 * runs the worker) is stopped. Answers its exit code (null: it came up) and everything it printed.
 */
async function pixgate(db: string, provider: 'simulator' | 'api-pix', args: string[]): Promise<{ code: number | null; out: string; port: number }> {
  const port = await freePort();
  const providerEnv = provider === 'api-pix' ? psp.env : { PIX_PROVIDER: 'simulator' };
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'src/main.ts'), ...args], {
    cwd: PROJECT_ROOT,
    env: {
      ...inherited, ...providerEnv, DATABASE_URL: withDatabaseName(inject('serverUrl'), db), PORT: String(port),
      PIXGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', METRICS_PORT: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const t0 = Date.now();
  while (child.exitCode === null && !READY.test(out)) {
    if (Date.now() - t0 > 90_000) throw new Error(`neither started nor exited:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (child.exitCode !== null) return { code: await exited, out, port };
  child.kill('SIGTERM');
  await exited;
  return { code: null, out, port };
}

const refused = (r: { code: number | null; out: string }, bound: string, given: string) => {
  expect(r.code, r.out).not.toBe(0);
  expect(r.code, r.out).not.toBeNull();
  expect(r.out).not.toMatch(READY);
  expect(r.out).toContain(`bound to the PIX provider "${bound}"`);
  expect(r.out).toContain(`PIX_PROVIDER=${given}`);
};

it('a simulator database refuses api-pix in every command, and serves nothing', async () => {
  const [db] = dbs as [string];
  expect((await pixgate(db, 'simulator', ['serve'])).code).toBeNull();
  // Side by side: each is refused on its own, before it serves anything.
  const runs = await Promise.all([['serve'], ['api'], ['worker'], ['migrate'], ['merchant', 'list']].map((args) => pixgate(db, 'api-pix', args)));
  for (const r of runs) {
    refused(r, 'simulator', 'api-pix');
    // Nothing listens on the port it was given.
    await expect(fetch(`http://127.0.0.1:${r.port}/health`)).rejects.toThrow();
  }
  // The CLI with the provider it was bound to still works.
  expect((await pixgate(db, 'simulator', ['merchant', 'list'])).code).toBe(0);
}, 300_000);

it('migrate does not bind; a database from before the rule is bound at its first start after it', async () => {
  const [, db] = dbs as [string, string];
  expect((await pixgate(db, 'simulator', ['migrate'])).code).toBe(0);
  // A database migrated, never run: as one from before the rule, bound by the first command that runs.
  const c = new pg.Client({ connectionString: withDatabaseName(inject('serverUrl'), db) });
  await c.connect();
  try {
    expect((await c.query('SELECT count(*)::int AS n FROM provider_binding')).rows[0].n).toBe(0);
    expect((await pixgate(db, 'api-pix', ['worker'])).code).toBeNull();
    expect((await c.query('SELECT provider FROM provider_binding')).rows).toEqual([{ provider: 'api-pix' }]);
  } finally {
    await c.end();
  }
  refused(await pixgate(db, 'simulator', ['serve']), 'api-pix', 'simulator');
}, 300_000);
