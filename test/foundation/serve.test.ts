// docs/contract/running.md#first-start: `npm start` (src/main.ts serve) on a fresh database migrates, seeds a demo merchant
// and prints its key, which can create a charge at once; a second start seeds nothing more.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config.js';
import { withDatabaseName } from '../../src/platform/database.js';
import { adminQuery, freePort } from '../fleet/processes.js';

const dbName = `pixgate_serve_${randomBytes(5).toString('hex')}`;
beforeAll(() => adminQuery(`CREATE DATABASE ${dbName}`));
afterAll(() => adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`));

// As on a fresh machine: no operator secrets given, the default provider.
const { ADMIN_TOKEN: _token, ENCRYPTION_KEY: _key, PIX_PROVIDER: _provider, ...inherited } = process.env;

/** Starts the service, waits for its welcome text, returns it, and stops the service. */
async function serve(dataDir: string, then: (base: string, out: string) => Promise<void>): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'src/main.ts'), 'serve'], {
    cwd: PROJECT_ROOT,
    env: { ...inherited, DATABASE_URL: withDatabaseName(inject('serverUrl'), dbName), PORT: String(port), PIXGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (out += chunk));
  try {
    const t0 = Date.now();
    while (!out.includes('listening on')) {
      if (child.exitCode !== null || Date.now() - t0 > 30_000) throw new Error(`service did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 100)); // the rest of the welcome text
    await then(`http://127.0.0.1:${port}`, out);
    return out;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

it('first start seeds a demo merchant whose printed key creates a charge and whose printed owner logs in; a second start seeds none', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pixgate-serve-'));
  const first = await serve(dataDir, async (base, out) => {
    const key = /Demo merchant mer_\w+ created\. Its API key, shown once:\s+(pxg_\w+)/.exec(out)?.[1];
    expect(key).toBeDefined();
    const res = await fetch(`${base}/transparents/create`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ method: 'PIX', amount: 1000 }),
    });
    expect(res.status).toBe(201);
    expect((await res.json()).data).toMatchObject({ amount: 1000, status: 'PENDING' });
    // docs/contract/running.md#first-start: the demo merchant's OWNER, printed once beside the key, logs in to the dashboard.
    expect(out).toContain(`Dashboard: ${base}/dashboard`);
    const login = /Dashboard login of the demo owner, shown once: (demo@pixgate\.local) \/ (\S+)/.exec(out);
    expect(login).not.toBeNull();
    const session = await fetch(`${base}/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: login![1], password: login![2] }),
    });
    expect(session.status).toBe(200);
    const { data } = await session.json();
    expect(data.user).toMatchObject({ email: 'demo@pixgate.local', role: 'OWNER' });
    const store = await fetch(`${base}/me/store`, { headers: { authorization: `Bearer ${data.token}` } });
    expect((await store.json()).data.name).toBe('Pixgate Demo Store');
  });
  expect(first).toMatch(/ADMIN_TOKEN \(generated, saved in .*\): \S+/);
  const second = await serve(dataDir, async () => {});
  expect(second).not.toContain('Demo merchant');
  expect(second).not.toContain('demo owner');
  expect(second).not.toContain('ADMIN_TOKEN');
}, 90_000);
