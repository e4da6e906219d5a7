import type { Executor } from '../platform/db.js';
import { countsMoved, deliveriesDue, firstAttemptsOf, waitingColumns } from '../events/event-fanout.sql.js';

/**
 * The merchant's endpoint count, under a transaction-scoped lock per merchant taken first: concurrent
 * creates count one after another, so 20 parallel creates cannot make 21. (Two statements: the count
 * must see what the holder of the lock committed.)
 */
export async function countEndpointsLocked(tx: Executor, merchantId: string): Promise<number> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook-endpoints:' || $1, 0))`, [merchantId]);
  const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE merchant_id = $1', [merchantId]);
  return rows[0]!.n;
}

/**
 * A new series of each pair matching `where` (over event_endpoints p), due now in its endpoint's lane
 * (event-fanout.sql.ts); it replaces a waiting attempt of the old series, and an attempt of it in flight
 * records without moving the pair. The pairs are locked first, so the state each leaves (its event's counts
 * move from it) is its latest. Then their first attempts queued; reads how many series started.
 */
const newSeries = (where: string) => `WITH old AS (
       SELECT p.event_id, p.endpoint_id, p.state FROM event_endpoints p WHERE ${where} FOR UPDATE),
     next AS (
       UPDATE event_endpoints p SET series = p.series + 1, state = 'PENDING', (due_at, due_attempt, slow_lane) = (${waitingColumns('w.slow')})
       FROM webhook_endpoints w, old o WHERE w.id = p.endpoint_id AND o.event_id = p.event_id AND o.endpoint_id = p.endpoint_id
       RETURNING p.event_id, p.endpoint_id, p.series, w.slow, o.state AS old_state),
     counts AS (${countsMoved(`(SELECT event_id, old_state, 'PENDING' AS new_state FROM next)`)}),
     queued AS (${firstAttemptsOf('next')})
     SELECT (SELECT count(*)::int FROM next) AS started, (SELECT due FROM queued) AS due`;

// An event older than the retention is out of reach of redeliver and recover, deleted yet or not.
const WITHIN_RETENTION = 'p.event_created_at >= now() - make_interval(days => $4)';
const START_SERIES = newSeries(`p.event_id = $1 AND p.endpoint_id = $2 AND p.merchant_id = $3 AND ${WITHIN_RETENTION}`);
const RESTART_FAILED = newSeries(
  `p.endpoint_id = $1 AND p.merchant_id = $2 AND p.state = 'FAILED' AND p.event_created_at >= $3::timestamptz AND ${WITHIN_RETENTION}`);

/**
 * Starts a new series of the event's delivery to the endpoint and queues its first attempt (replacing
 * a pending attempt of the old series). False when the event never went to it.
 */
export async function startSeries(db: Executor, m: { merchantId: string; endpointId: string; eventId: string; retentionDays: number }): Promise<boolean> {
  const { rows } = await db.query<{ started: number; due: number }>(START_SERIES, [m.eventId, m.endpointId, m.merchantId, m.retentionDays]);
  deliveriesDue(db, rows[0]!.due);
  return rows[0]!.started === 1;
}

/** A new series for every event since `since` whose latest series to the endpoint FAILED; returns how many. */
export async function restartFailed(db: Executor, m: { merchantId: string; endpointId: string; since: string; retentionDays: number }): Promise<number> {
  const { rows } = await db.query<{ started: number; due: number }>(RESTART_FAILED, [m.endpointId, m.merchantId, m.since, m.retentionDays]);
  deliveriesDue(db, rows[0]!.due);
  return rows[0]!.started;
}

/**
 * The new secret becomes current; the current one keeps signing until now + `keepSeconds` (0: stops at
 * once, not kept). The older previous secret, if any, is dropped: at most two live.
 */
export async function rotateSecretRow(
  db: Executor, m: { merchantId: string; endpointId: string; secretEncrypted: string; keepSeconds: number },
): Promise<{ id: string; previous_expires_at: Date | null } | undefined> {
  const { rows } = await db.query<{ id: string; previous_expires_at: Date | null }>(
    `UPDATE webhook_endpoints SET
       secret_previous_encrypted = CASE WHEN $4::int > 0 THEN secret_encrypted END,
       secret_previous_expires_at = CASE WHEN secret_encrypted IS NOT NULL THEN now_ms() + make_interval(secs => $4::int) END,
       secret_encrypted = $3
     WHERE id = $1 AND merchant_id = $2
     RETURNING id, secret_previous_expires_at AS previous_expires_at`,
    [m.endpointId, m.merchantId, m.secretEncrypted, m.keepSeconds],
  );
  return rows[0];
}
