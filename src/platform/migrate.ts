import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { runMigrations as runJobQueueMigrations } from 'graphile-worker';
import { PROJECT_ROOT } from '../config.js';
import { silentLogger } from './jobs.js';

const MIGRATIONS_DIR = join(PROJECT_ROOT, 'migrations');
// One lock id for every Pixgate process: the second to start waits, then finds nothing left to apply.
const MIGRATION_LOCK = 7_263_514_001;

interface MigrationFile {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

function readMigrations(): MigrationFile[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((name) => {
      const sql = readFileSync(join(MIGRATIONS_DIR, name), 'utf8');
      return { version: Number(name.slice(0, 4)), name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies pending migrations, each in its own transaction, under a session advisory lock so that
 * several processes starting together apply each file exactly once. An applied file whose checksum
 * changed stops the start: migrations are forward-only, edit by adding a new file.
 */
export async function migrate(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number; checksum: string; name: string }>(
      'SELECT version, checksum, name FROM schema_migrations',
    );
    const done = new Map(rows.map((r) => [r.version, r]));
    for (const m of readMigrations()) {
      const prior = done.get(m.version);
      if (prior) {
        if (prior.checksum !== m.checksum) throw new Error(`migration ${m.name} changed after it was applied (checksum mismatch)`);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [m.version, m.name, m.checksum]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`);
      }
      applied.push(m.name);
    }
    await runJobQueueMigrations({ pgPool: pool, logger: silentLogger() });
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
  return applied;
}
