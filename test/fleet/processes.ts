import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { PROJECT_ROOT } from '../../src/config.js';
import { withDatabaseName } from '../../src/platform/database.js';

export const ADMIN_TOKEN = 'fleet-admin-token-0123456789abcdefghij';

export const freePort = () => new Promise<number>((resolve) => {
  const srv = createServer().listen(0, '127.0.0.1', () => {
    const { port } = srv.address() as { port: number };
    srv.close(() => resolve(port));
  });
});

/** One statement on the test server's maintenance database (create or drop a database). */
export async function adminQuery(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: inject('serverUrl') });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A fresh database cloned from the migrated template; `drop` removes it. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `pixgate_fleet_${randomBytes(5).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${inject('templateDb')}`);
  return { url: withDatabaseName(inject('serverUrl'), name), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export interface Proc {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** Starts `pixgate <command>` as its own process and waits until it prints `ready` (a regexp). */
export async function startPixgate(command: string, env: Record<string, string>, ready: RegExp): Promise<Proc> {
  const { ADMIN_TOKEN: _t, ENCRYPTION_KEY: _k, PIX_PROVIDER: _p, REDIS_URL: _r, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'src/main.ts'), command], {
    cwd: PROJECT_ROOT,
    env: {
      ...inherited, ADMIN_TOKEN, ENCRYPTION_KEY: 'ab'.repeat(32), LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE: 'true',
      PIXGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'pixgate-fleet-')), ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const t0 = Date.now();
  while (!ready.test(out)) {
    if (child.exitCode !== null || Date.now() - t0 > 90_000) {
      child.kill('SIGKILL');
      throw new Error(`pixgate ${command} did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, output: () => out, exited };
}
