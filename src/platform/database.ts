import { join } from 'node:path';
import pg from 'pg';
import type { Config } from '../config.js';
import { createPool } from './db.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';

export interface Database {
  pool: pg.Pool;
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

/** Replaces the database name of a connection string. */
export function withDatabaseName(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** `DATABASE_URL` when set; otherwise the embedded PostgreSQL under the data dir, database `pixgate`. */
export async function openDatabase(config: Config, poolSize = 20): Promise<Database> {
  if (config.databaseUrl) {
    const pool = createPool(config.databaseUrl, poolSize);
    return { pool, url: config.databaseUrl, embedded: false, close: () => pool.end() };
  }
  const server = await startEmbeddedPostgres(join(config.dataDir, 'postgres'));
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    const { rowCount } = await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'pixgate'`);
    if (!rowCount) await admin.query('CREATE DATABASE pixgate').catch((e: { code?: string }) => {
      if (e.code !== '42P04') throw e; // created by a process starting at the same moment
    });
  } finally {
    await admin.end();
  }
  const url = withDatabaseName(server.url, 'pixgate');
  const pool = createPool(url, poolSize);
  return {
    pool,
    url,
    embedded: true,
    close: async () => {
      await pool.end();
      await server.stop();
    },
  };
}
