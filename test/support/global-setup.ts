import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { PROJECT_ROOT } from '../../src/config.js';
import { createPool } from '../../src/platform/db.js';
import { withDatabaseName } from '../../src/platform/database.js';
import { startEmbeddedPostgres, stopStaleServer, type EmbeddedDatabase } from '../../src/platform/embedded-postgres.js';
import { migrate } from '../../src/platform/migrate.js';
import { ensureDashboardBuilt } from '../../src/dashboard/dashboard.build.js';
import { writeApiTypes } from '../../scripts/api-types.js';

declare module 'vitest' {
  export interface ProvidedContext {
    serverUrl: string;
    templateDb: string;
  }
}

/** Leftovers of runs whose process is gone (killed before its teardown). */
async function removeDeadRuns(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const pid = Number(/^run-(\d+)$/.exec(name)?.[1]);
    if (!pid) continue;
    try {
      process.kill(pid, 0);
    } catch {
      await stopStaleServer(join(dir, name, 'pg')).catch(() => {});
      rmSync(join(dir, name), { recursive: true, force: true });
    }
  }
}

/**
 * Tests run against a real PostgreSQL: DATABASE_URL's server when set (CI), otherwise an embedded one
 * under .data/test. One migrated template database is made here; each test file clones it.
 */
export default async function setup(project: TestProject) {
  // The browser tests (test/dashboard) load the built dashboard; a fresh clone has none yet.
  await writeApiTypes();
  await ensureDashboardBuilt();
  let embedded: EmbeddedDatabase | null = null;
  let serverUrl = process.env.DATABASE_URL;
  // Each run gets its own server directory, so two runs at once (a developer and CI) never stop each other's.
  const runDir = join(PROJECT_ROOT, '.data', 'test', `run-${process.pid}`);
  if (!serverUrl) {
    await removeDeadRuns(join(PROJECT_ROOT, '.data', 'test'));
    embedded = await startEmbeddedPostgres(runDir);
    serverUrl = embedded.url;
  }
  const templateDb = `pixgate_tpl_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${templateDb}`);
  await admin.query(`CREATE DATABASE ${templateDb}`);
  const pool = createPool(withDatabaseName(serverUrl, templateDb), 2);
  await migrate(pool);
  await pool.end();
  project.provide('serverUrl', serverUrl);
  project.provide('templateDb', templateDb);

  return async () => {
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`, [templateDb, `pixgate_t${process.pid}_%`]);
    for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`).catch(() => {});
    await admin.end();
    if (embedded) {
      await embedded.stop();
      rmSync(runDir, { recursive: true, force: true });
    }
  };
}
