import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { PROJECT_ROOT } from '../../src/config.js';
import { createPool } from '../../src/platform/db.js';
import { withDatabaseName } from '../../src/platform/database.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/platform/embedded-postgres.js';
import { migrate } from '../../src/platform/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    serverUrl: string;
    templateDb: string;
  }
}

/**
 * Tests run against a real PostgreSQL: DATABASE_URL's server when set (CI), otherwise an embedded one
 * under .data/test. One migrated template database is made here; each test file clones it.
 */
export default async function setup(project: TestProject) {
  let embedded: EmbeddedDatabase | null = null;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    embedded = await startEmbeddedPostgres(join(PROJECT_ROOT, '.data', 'test'));
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
    await embedded?.stop();
  };
}
