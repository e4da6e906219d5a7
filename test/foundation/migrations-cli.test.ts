import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createPool } from '../../src/platform/db.js';
import { withDatabaseName } from '../../src/platform/database.js';
import { migrate } from '../../src/platform/migrate.js';
import { PROJECT_ROOT } from '../../src/config.js';

const run = promisify(execFile);
const server = () => inject('serverUrl');
const dbName = `${inject('templateDb')}_mig${process.pid}`;
let admin: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: server() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
});
afterAll(async () => {
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
});

describe('migrations', () => {
  it('apply once when several processes start together, each recorded with a checksum', async () => {
    const pools = [0, 1, 2].map(() => createPool(withDatabaseName(server(), dbName), 3));
    try {
      const applied = await Promise.all(pools.map((p) => migrate(p)));
      expect(applied.flat().filter((f) => f.startsWith('0001')).length).toBe(1);
      const { rows } = await pools[0]!.query('SELECT name, checksum FROM schema_migrations ORDER BY version');
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(r.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(await migrate(pools[0]!)).toEqual([]);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('refuse to start when an applied migration file changed', async () => {
    const pool = createPool(withDatabaseName(server(), dbName), 2);
    try {
      await pool.query(`UPDATE schema_migrations SET checksum = 'tampered' WHERE version = 1`);
      await expect(migrate(pool)).rejects.toThrow(/checksum mismatch/);
    } finally {
      await pool.end();
    }
  });
});

describe('operator CLI', () => {
  it('creates a merchant and an API key that works on the API', async () => {
    const db = `${inject('templateDb')}_cli${process.pid}`;
    await admin.query(`CREATE DATABASE ${db} TEMPLATE ${inject('templateDb')}`);
    try {
      const env = { ...process.env, DATABASE_URL: withDatabaseName(server(), db), PIXGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'pxg-cli-')) };
      const cli = (...args: string[]) => run(process.execPath, [join(PROJECT_ROOT, 'bin/pixgate.js'), ...args], { env });
      const created = JSON.parse((await cli('merchant', 'create', '--user-name', 'cli', '--email', 'cli@example.com',
        '--kyc-status', 'APPROVED', '--trade-name', 'CLI Store', '--pix-key', 'cli@example.com', '--pix-key-type', 'EMAIL')).stdout);
      expect(created).toMatchObject({ userName: 'cli', kyc: { status: 'APPROVED', tradeName: 'CLI Store' }, pixKey: { key: 'cli@example.com', type: 'EMAIL' } });
      const key = JSON.parse((await cli('apikey', 'create', created.id)).stdout);
      expect(key.key).toMatch(/^pxg_/);
      const suspended = JSON.parse((await cli('merchant', 'update', created.id, '--suspended', 'true')).stdout);
      expect(suspended.suspended).toBe(true);
      await expect(cli('merchant', 'get', 'mer_missing')).rejects.toMatchObject({ stderr: expect.stringContaining('NOT_FOUND') });
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    }
  }, 60_000);
});
