import type pg from 'pg';
import { createPool } from '../../src/platform/db.js';
import { freshDatabase, startPixgate, type BenchServer, type ChildServer } from './env.js';
import { Fixtures } from './fixtures.js';

/** What a benchmark runs against: Pixgate on a fresh database, API fixtures, and a small pool on that database. */
export interface PixgateRig {
  /** The fresh database's URL. */
  url: string;
  pixgate: ChildServer;
  fx: Fixtures;
  pool: pg.Pool;
  /** Registers a teardown (a receiver, a ceiling server, a client); teardowns run in reverse order. */
  defer(teardown: () => unknown): void;
}

/** Runs `fn` on a fresh rig and tears everything down afterwards, whatever `fn` did. */
export async function withPixgate<T>(
  server: BenchServer, o: { env?: Record<string, string>; root?: string }, fn: (rig: PixgateRig) => Promise<T>,
): Promise<T> {
  const db = await freshDatabase(server);
  const teardowns: Array<() => unknown> = [() => db.drop()];
  const defer = (teardown: () => unknown) => void teardowns.push(teardown);
  try {
    const pixgate = await startPixgate(db.url, o.env, o.root);
    defer(() => pixgate.stop());
    const pool = createPool(db.url, 2);
    defer(() => pool.end());
    const fx = new Fixtures(pixgate.base);
    defer(() => fx.close());
    return await fn({ url: db.url, pixgate, fx, pool, defer });
  } finally {
    for (const teardown of teardowns.reverse()) await teardown();
  }
}
