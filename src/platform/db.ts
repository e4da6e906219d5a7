import pg from 'pg';
import { multiHostPoolConfig } from './multi-host-pool.js';

// BIGINT cents arrive as strings by default; numbers are exact up to 2^53, far above every bound of the spec.
pg.types.setTypeParser(pg.types.builtins.INT8, (text) => {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`bigint ${text} exceeds the safe integer range`);
  return n;
});
// A DATE is a civil day (`YYYY-MM-DD`), not an instant: node-pg would make it a Date at the process's local
// midnight, whose day depends on the machine's time zone. It stays the text PostgreSQL sends (ISO DateStyle).
pg.types.setTypeParser(pg.types.builtins.DATE, (text) => text);

/** Anything that runs a query: the pool or a transaction's client. */
export type Executor = Pick<pg.PoolClient, 'query'>;
/** A client inside an open transaction; functions that must run in one take it first. */
export type Tx = pg.PoolClient;

// Statement text → prepared-statement name, shared by every connection of the process.
const statementNames = new Map<string, string>();

/**
 * Sends every parameterised statement of `client` as a named prepared statement, so PostgreSQL parses
 * and plans it once per connection instead of on every call: measured, a third of the database CPU of
 * a charge create (docs/performance.md). Statements without parameters (BEGIN, COMMIT, multi-statement
 * scripts, which need the simple protocol) and query objects (graphile-worker's) pass through as sent.
 */
function prepareParameterised(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
    if (typeof text !== 'string' || !Array.isArray(values)) return query(text, values, callback);
    let name = statementNames.get(text);
    if (name === undefined) statementNames.set(text, (name = `pxg_${statementNames.size}`));
    return query({ name, text, values }, callback);
  };
}

const connectionStrings = new WeakMap<pg.Pool, string>();
/** The connection string a pool of createPool was made from, for a process of ours that needs its own. */
export const connectionStringOf = (pool: pg.Pool): string => {
  const url = connectionStrings.get(pool);
  if (url === undefined) throw new Error('not a pool of createPool');
  return url;
};

/**
 * The connection string is read as libpq reads it (platform/multi-host.ts): several hosts, sslmode,
 * target_session_attrs; each new connection goes to the host chosen, so the pool follows a failover.
 */
export function createPool(connectionString: string, max = 10): pg.Pool {
  const { Client, base } = multiHostPoolConfig(connectionString);
  const pool = new pg.Pool({ application_name: 'pixgate', ...base, Client, max });
  connectionStrings.set(pool, connectionString);
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    prepareParameterised(client);
  });
  return pool;
}

/**
 * Joins a command's transaction: runs after BEGIN, and decides what a failure still commits.
 * The idempotency plugin uses it so the stored answer commits with the work it describes.
 */
export interface TransactionHook<T> {
  begin(tx: Tx): Promise<void>;
  beforeCommit(tx: Tx, result: T): Promise<void>;
  /** Return true when the failure's answer was written and the transaction should commit anyway. */
  onFailure(tx: Tx, error: unknown): Promise<boolean>;
}

/**
 * Work to start once a transaction's changes are visible to other sessions: a wake-up for rows it made due
 * (a webhook delivery). `withTransaction` runs the callbacks after COMMIT (never after a rollback, once per
 * committed attempt), `withStatement` after its statement; each gets the pool, to reach other processes.
 */
type CommitCallback = (pool: pg.Pool) => void;
const commitCallbacks = new WeakMap<object, CommitCallback[]>();

/**
 * Runs `fn` after the transaction `db` belongs to commits. An executor opened by neither withTransaction nor
 * withStatement (a test's own client) cannot say when that is: `fn` is dropped, and the work it would have
 * woken is found by its poll instead.
 */
export function afterCommit(db: Executor, fn: CommitCallback): void {
  commitCallbacks.get(db)?.push(fn);
}

function runCommitCallbacks(db: object, pool: pg.Pool): void {
  const callbacks = commitCallbacks.get(db);
  commitCallbacks.delete(db);
  for (const fn of callbacks ?? []) {
    try {
      fn(pool);
    } catch {
      // A wake-up that fails is made up for by the poll; the commit stands.
    }
  }
}

const RETRYABLE = new Set(['40001', '40P01']); // serialization failure, deadlock detected
const MAX_ATTEMPTS = 5;

export async function withTransaction<T>(pool: pg.Pool, fn: (tx: Tx) => Promise<T>, hook?: TransactionHook<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken = false;
    let inWork = false; // only failures of the command itself may have their answer committed
    try {
      commitCallbacks.set(client, []);
      await client.query('BEGIN');
      if (hook) await hook.begin(client);
      inWork = true;
      const result = await fn(client);
      inWork = false;
      if (hook) await hook.beforeCommit(client, result);
      await client.query('COMMIT');
      runCommitCallbacks(client, pool);
      return result;
    } catch (err) {
      const answered = inWork && !!hook && !isRetryable(err) && (await hook.onFailure(client, err).catch(() => false));
      // What the work asked to start after its commit is dropped: only the stored answer commits here.
      commitCallbacks.delete(client);
      await client.query(answered ? 'COMMIT' : 'ROLLBACK').catch(() => (broken = true));
      if (!answered && isRetryable(err) && attempt < MAX_ATTEMPTS) continue;
      throw err;
    } finally {
      client.release(broken);
    }
  }
}

/**
 * A command whose work is a single statement runs it alone — a statement is its own transaction — unless
 * a hook (an Idempotency-Key) must commit with it: no BEGIN, COMMIT or held connection for nothing.
 */
export async function withStatement<T>(pool: pg.Pool, fn: (db: Executor) => Promise<T>, hook?: TransactionHook<T>): Promise<T> {
  if (hook) return withTransaction(pool, fn, hook);
  // An executor of its own, so that afterCommit knows the statement's commit is when it returns.
  const db: Executor = { query: pool.query.bind(pool) as Executor['query'] };
  commitCallbacks.set(db, []);
  const result = await fn(db).catch((err: unknown) => {
    commitCallbacks.delete(db);
    throw err;
  });
  runCommitCallbacks(db, pool);
  return result;
}

/**
 * withStatement, run again (up to MAX_ATTEMPTS) when its statement lost a deadlock or a serialization failure,
 * as withTransaction retries a transaction: a failed statement committed nothing, so it is safe to repeat.
 */
export async function withStatementRetried<T>(pool: pg.Pool, fn: (db: Executor) => Promise<T>, hook?: TransactionHook<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withStatement(pool, fn, hook);
    } catch (err) {
      if (hook || !isRetryable(err) || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}

/**
 * SQL: makes the commit of the statement that evaluates it asynchronous (not waiting for its WAL flush).
 * Only for at-least-once bookkeeping run alone (a delivery claimed or recorded, a NOTIFY): a crash may lose
 * the last few such commits, which then run again. Never in a transaction that moves money or stores an answer.
 */
export const UNFLUSHED_COMMIT = "set_config('synchronous_commit', 'off', true)";

/** Notifies `channel` (an empty payload) in a statement of its own, outside any transaction, unflushed. */
export async function notifyChannel(pool: pg.Pool, channel: string): Promise<void> {
  await pool.query(`SELECT pg_notify($1, ''), ${UNFLUSHED_COMMIT}`, [channel]);
}

export function isRetryable(err: unknown): boolean {
  return typeof err === 'object' && err !== null && RETRYABLE.has((err as { code?: string }).code ?? '');
}

export const isUniqueViolation = (err: unknown, constraint?: string): boolean =>
  (err as { code?: string })?.code === '23505' && (!constraint || (err as { constraint?: string }).constraint === constraint);

/** Whether the database answers a query now (/health). */
export const databaseAnswers = (pool: pg.Pool): Promise<boolean> => pool.query('SELECT 1').then(() => true, () => false);

/**
 * A statement's parameters, numbered as they are added, so no caller counts placeholders: each
 * `add(value)` answers the next `$n`, and `values` go with the text in that order.
 */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    return `$${this.values.push(value)}`;
  }
}
