import type pg from 'pg';
import type { Executor, Tx } from '../db.js';

/**
 * docs/contract/http.md#idempotency-claims: a claim (a row without an answer) is live while the process that
 * made it beats in http_process_heartbeats. A process writes its row every second (CLAIM_BEAT_MS in
 * idempotency-claim.ts); one silent this long is dead, and its claims may be taken over by a retry.
 */
export const PROCESS_SILENT_AFTER_S = 5;
const LIVE_CLAIM = `EXISTS (SELECT 1 FROM http_process_heartbeats h
  WHERE h.process_id = idempotency_keys.claim_process AND h.seen_at > now() - make_interval(secs => ${PROCESS_SILENT_AFTER_S}))`;
/** The row under a key may be overwritten: its answer is past 24 h, or it is a claim whose process died. */
const REPLACEABLE = `idempotency_keys.created_at <= now() - interval '24 hours'
  OR (idempotency_keys.status_code IS NULL AND NOT ${LIVE_CLAIM})`;

/** A stored answer, or a claim (status_code and body null) of a request still running — or whose process died. */
export interface StoredAnswer {
  request_hash: string;
  status_code: number | null;
  body: unknown;
  /** A claim whose process still beats: its request may still be running. */
  live: boolean;
  /** Stored before keys were kept per caller (migration 0014): its caller is unknown. */
  legacy: boolean;
}

/** A key is the caller's own (docs/contract/http.md#idempotency-scope): the merchant, the API key or user id, the header's value. */
export interface KeyRow {
  merchantId: string;
  callerId: string;
  key: string;
}

/** The caller's row under the key, else one stored before callers were told apart (caller ''). */
export async function findAnswer(db: Pick<Tx, 'query'>, k: KeyRow): Promise<StoredAnswer | undefined> {
  const { rows } = await db.query<StoredAnswer>(
    `SELECT request_hash, status_code, body, ${LIVE_CLAIM} AS live, caller_id = '' AS legacy
     FROM idempotency_keys
     WHERE merchant_id = $1 AND caller_id IN ($2, '') AND key = $3 AND created_at > now() - interval '24 hours'
     ORDER BY caller_id = '' LIMIT 1`,
    [k.merchantId, k.callerId, k.key],
  );
  return rows[0];
}

/** The key's transaction-scoped advisory lock; false when another transaction holds it. */
export async function tryLockKey(tx: Tx, k: KeyRow): Promise<boolean> {
  const { rows } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked', [
    `idempotency:${k.merchantId}:${k.callerId}:${k.key}`,
  ]);
  return rows[0]?.locked === true;
}

/** Stores a one-transaction command's answer; false when a live claim holds the key (its request keeps it). */
export async function saveAnswer(tx: Tx, k: KeyRow & { hash: string; status: number; body: unknown }): Promise<boolean> {
  const { rowCount } = await tx.query(
    `INSERT INTO idempotency_keys (merchant_id, caller_id, key, request_hash, status_code, body) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (merchant_id, caller_id, key) DO UPDATE
       SET request_hash = $4, status_code = $5, body = $6, claim_id = NULL, claim_process = NULL, created_at = now_ms()
     WHERE ${REPLACEABLE}`,
    [k.merchantId, k.callerId, k.key, k.hash, k.status, JSON.stringify(k.body)],
  );
  return rowCount === 1;
}

/** Claims the key for `processId` with a row of its own (no answer yet); false when the row under it may not be replaced. */
export async function insertClaim(pool: pg.Pool, k: KeyRow & { hash: string; claimId: string; processId: string }): Promise<boolean> {
  const { rowCount } = await pool.query(
    `INSERT INTO idempotency_keys (merchant_id, caller_id, key, request_hash, claim_id, claim_process) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (merchant_id, caller_id, key) DO UPDATE
       SET request_hash = $4, status_code = NULL, body = NULL, claim_id = $5, claim_process = $6, created_at = now_ms()
     WHERE ${REPLACEABLE}`,
    [k.merchantId, k.callerId, k.key, k.hash, k.claimId, k.processId],
  );
  return rowCount === 1;
}

/** The claim's answer; false when the claim was taken over by a retry. */
export async function answerClaim(db: Executor, k: KeyRow & { claimId: string; status: number; body: unknown }): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE idempotency_keys SET status_code = $5, body = $6, claim_id = NULL, claim_process = NULL
     WHERE merchant_id = $1 AND caller_id = $2 AND key = $3 AND claim_id = $4 AND status_code IS NULL`,
    [k.merchantId, k.callerId, k.key, k.claimId, k.status, JSON.stringify(k.body)],
  );
  return rowCount === 1;
}

/** Frees a claim that got no answer (its request failed); an answer that did commit is left alone. */
export async function deleteClaim(pool: pg.Pool, k: KeyRow & { claimId: string }): Promise<void> {
  await pool.query(
    'DELETE FROM idempotency_keys WHERE merchant_id = $1 AND caller_id = $2 AND key = $3 AND claim_id = $4 AND status_code IS NULL',
    [k.merchantId, k.callerId, k.key, k.claimId],
  );
}

/** One batch of the retention sweep: answers past 24 hours are only storage. */
export async function deleteExpiredKeys(db: Executor, batch: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM idempotency_keys WHERE (merchant_id, caller_id, key) IN (
       SELECT merchant_id, caller_id, key FROM idempotency_keys WHERE created_at <= now() - interval '24 hours' LIMIT $1)`,
    [batch],
  );
  return rowCount ?? 0;
}

/** The process is alive now: its claims stay live for PROCESS_SILENT_AFTER_S. */
export async function beatProcess(db: Executor, processId: string): Promise<void> {
  await db.query(
    'INSERT INTO http_process_heartbeats (process_id) VALUES ($1) ON CONFLICT (process_id) DO UPDATE SET seen_at = now()',
    [processId],
  );
}

/** The process is closing: whatever claims it left are released at once. */
export async function endProcess(db: Executor, processId: string): Promise<void> {
  await db.query('DELETE FROM http_process_heartbeats WHERE process_id = $1', [processId]);
}

/** Rows of processes long gone; their claims were released when they fell silent. */
export async function deleteSilentProcesses(db: Executor): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM http_process_heartbeats WHERE seen_at < now() - interval '1 hour'`);
  return rowCount ?? 0;
}
