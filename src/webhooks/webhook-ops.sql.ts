import type { Executor } from '../platform/db.js';
import { deliveriesDue, firstAttemptsOf, waitingColumns } from '../events/event-fanout.sql.js';

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

// An event older than the retention is out of reach of redeliver and recover, deleted yet or not.
const WITHIN_RETENTION = `p.event_created_at >= now() - make_interval(days => $RETENTION)`;
const within = (n: number) => WITHIN_RETENTION.replace('$RETENTION', `$${n}`);

// A new series of each pair, due now in its endpoint's lane (event-fanout.sql.ts); it replaces a waiting
// attempt of the old series, and an attempt of it in flight records without moving the pair.
const NEW_SERIES = `series = p.series + 1, state = 'PENDING', (due_at, due_attempt, slow_lane) = (${waitingColumns('w.slow')})
       FROM webhook_endpoints w WHERE w.id = p.endpoint_id`;
// After `next` (the new series): their first attempts queued, and how many series started.
const QUEUED = `queued AS (${firstAttemptsOf('next')})
     SELECT (SELECT count(*)::int FROM next) AS started, (SELECT due FROM queued) AS due`;

/**
 * Starts a new series of the event's delivery to the endpoint and queues its first attempt (replacing
 * a pending attempt of the old series: same job key). False when the event never went to it.
 */
export async function startSeries(db: Executor, m: { merchantId: string; endpointId: string; eventId: string; retentionDays: number }): Promise<boolean> {
  const { rows } = await db.query<{ started: number; due: number }>(
    `WITH next AS (
       UPDATE event_endpoints p SET ${NEW_SERIES}
         AND p.event_id = $1 AND p.endpoint_id = $2 AND p.merchant_id = $3 AND ${within(4)}
       RETURNING p.event_id, p.endpoint_id, p.series, w.slow),
     ${QUEUED}`,
    [m.eventId, m.endpointId, m.merchantId, m.retentionDays],
  );
  deliveriesDue(db, rows[0]!.due);
  return rows[0]!.started === 1;
}

/** A new series for every event since `since` whose latest series to the endpoint FAILED; returns how many. */
export async function restartFailed(db: Executor, m: { merchantId: string; endpointId: string; since: string; retentionDays: number }): Promise<number> {
  const { rows } = await db.query<{ started: number; due: number }>(
    `WITH next AS (
       UPDATE event_endpoints p SET ${NEW_SERIES}
         AND p.endpoint_id = $1 AND p.merchant_id = $2 AND p.state = 'FAILED' AND p.event_created_at >= $3::timestamptz AND ${within(4)}
       RETURNING p.event_id, p.endpoint_id, p.series, w.slow),
     ${QUEUED}`,
    [m.endpointId, m.merchantId, m.since, m.retentionDays],
  );
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
