import type { AnyEventType } from '../events/event.schemas.js';
import type { Executor } from '../platform/db.js';
import { deliveryJobKey, DELIVER_TASK, drainsFor } from '../events/event-fanout.sql.js';

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: AnyEventType;
  attempt: number;
  status_code: number | null;
  success: boolean;
  error: string | null;
  duration_ms: number;
  manual: boolean;
  created_at: Date;
}

const DELIVERY_COLUMNS = 'id, endpoint_id, event_id, event_type, attempt, status_code, success, error, duration_ms, manual, created_at';

/** What one delivery attempt needs: where, with which secrets, which bytes, and whether it already ran. */
export interface DeliveryTarget {
  merchant_id: string;
  url: string;
  secret_encrypted: string | null;
  /** The secret before a rotation, while it still signs (null once expired). */
  secret_previous_encrypted: string | null;
  slow: boolean;
  event_type: AnyEventType;
  body: string;
  /** The pair's current series; null when the event never went to this endpoint. */
  series: number | null;
  recorded: boolean;
}

export async function selectDeliveryTarget(
  db: Executor,
  job: { eventId: string; endpointId: string; attempt: number; series: number },
): Promise<DeliveryTarget | undefined> {
  const { rows } = await db.query<DeliveryTarget>(
    `SELECT w.merchant_id, w.url, w.secret_encrypted, w.slow, e.type AS event_type, e.body, p.series,
            CASE WHEN w.secret_previous_expires_at > now() THEN w.secret_previous_encrypted END AS secret_previous_encrypted,
            EXISTS (SELECT 1 FROM webhook_deliveries d
                    WHERE d.endpoint_id = w.id AND d.event_id = e.id AND d.series = $4 AND d.attempt = $3) AS recorded
     FROM webhook_endpoints w JOIN events e ON e.id = $2 AND e.merchant_id = w.merchant_id
     LEFT JOIN event_endpoints p ON p.event_id = e.id AND p.endpoint_id = w.id
     WHERE w.id = $1`,
    [job.endpointId, job.eventId, job.attempt, job.series],
  );
  return rows[0];
}

export interface AttemptRecord {
  id: string; merchantId: string; endpointId: string; eventId: string; eventType: AnyEventType; series: number; attempt: number;
  statusCode: number | null; success: boolean; error: string | null; durationMs: number; manual: boolean;
}

/**
 * Records one attempt; when it ends its series (`final`), the pair's state moves with it (and the event's
 * counts, by trigger) — unless a newer series replaced this one meanwhile. The endpoint's lane follows
 * the attempt's speed. Returns false when this attempt was already recorded (a second run of the job).
 */
export async function recordAttempt(db: Executor, d: AttemptRecord, o: { final: 'SUCCEEDED' | 'FAILED' | null; slow: boolean }): Promise<boolean> {
  const { rows } = await db.query<{ recorded: boolean }>(
    `WITH rec AS (
       INSERT INTO webhook_deliveries
         (id, merchant_id, endpoint_id, event_id, event_type, series, attempt, status_code, success, error, duration_ms, manual)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT ON CONSTRAINT webhook_deliveries_attempt DO NOTHING RETURNING 1),
     state AS (
       UPDATE event_endpoints SET state = $13, due_at = NULL, due_attempt = NULL WHERE event_id = $4 AND endpoint_id = $3 AND series = $6 AND state = 'PENDING'
         AND $13::text IS NOT NULL AND EXISTS (SELECT 1 FROM rec)),
     lane AS (UPDATE webhook_endpoints SET slow = $14 WHERE id = $3 AND slow <> $14 AND EXISTS (SELECT 1 FROM rec))
     SELECT EXISTS (SELECT 1 FROM rec) AS recorded`,
    [d.id, d.merchantId, d.endpointId, d.eventId, d.eventType, d.series, d.attempt, d.statusCode, d.success, d.error, d.durationMs,
      d.manual, o.final, o.slow],
  );
  return rows[0]!.recorded;
}

/**
 * Where the pair's attempt `job.attempt` will run, while `job.series` is still the pair's current one and
 * not ended (the row lock waits out a redeliver): a job in the fast lane, or, for a slow endpoint, waiting
 * on the pair's row for its endpoint's drain (event-fanout.sql.ts). `runAt` null: due now.
 */
export async function scheduleAttempt(
  db: Executor, job: { eventId: string; endpointId: string; series: number; attempt: number }, o: { slow: boolean; runAt: Date | null },
): Promise<void> {
  await db.query(
    `WITH pair AS (
       UPDATE event_endpoints SET due_at = CASE WHEN $1 THEN coalesce($2, now()) END, due_attempt = CASE WHEN $1 THEN $3::smallint END
       WHERE event_id = $4 AND endpoint_id = $5 AND series = $6 AND state = 'PENDING'
       RETURNING endpoint_id, due_at AS run_at)
     SELECT graphile_worker.add_job('${DELIVER_TASK}', $7::json, run_at => $2::timestamptz, job_key => $8::text, max_attempts => 25)
     FROM pair WHERE NOT $1
     UNION ALL
     ${drainsFor('(SELECT * FROM pair WHERE $1)')}`,
    [o.slow, o.runAt, job.attempt, job.eventId, job.endpointId, job.series, JSON.stringify(job), deliveryJobKey(job.eventId, job.endpointId)],
  );
}

export interface DueAttempt {
  event_id: string;
  series: number;
  due_attempt: number;
}

/**
 * Up to `limit` of the endpoint's waiting attempts that are due, oldest first, each leased for `leaseMs`
 * (due again then, should this worker die mid-attempt). SKIP LOCKED: a pair a redeliver holds is taken
 * next time.
 */
export async function claimDue(db: Executor, endpointId: string, limit: number, leaseMs: number): Promise<DueAttempt[]> {
  const { rows } = await db.query<DueAttempt>(
    `UPDATE event_endpoints p SET due_at = now() + make_interval(secs => $3::float8 / 1000)
     FROM (SELECT event_id FROM event_endpoints WHERE endpoint_id = $1 AND due_at <= now()
           ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED) d
     WHERE p.endpoint_id = $1 AND p.event_id = d.event_id
     RETURNING p.event_id, p.series, p.due_attempt`,
    [endpointId, limit, leaseMs],
  );
  return rows;
}

/** The pair no longer waits (its attempt was recorded meanwhile), unless a newer attempt or series took its place. */
export async function clearDue(db: Executor, job: { eventId: string; endpointId: string; series: number; attempt: number }): Promise<void> {
  await db.query(
    `UPDATE event_endpoints SET due_at = NULL, due_attempt = NULL WHERE event_id = $1 AND endpoint_id = $2 AND series = $3 AND due_attempt = $4`,
    [job.eventId, job.endpointId, job.series, job.attempt],
  );
}

/**
 * A drain's next run, by the endpoint's earliest waiting attempt but never before now (a drain that ran
 * its share goes behind the others waiting); none when nothing waits.
 */
export async function queueNextDrain(db: Executor, endpointId: string): Promise<void> {
  await db.query(
    drainsFor(`(SELECT endpoint_id, greatest(due_at, now()) AS run_at FROM event_endpoints WHERE endpoint_id = $1 AND due_at IS NOT NULL)`,
      { always: true }),
    [endpointId],
  );
}

/**
 * A drain for every endpoint with an attempt due `overdueMs` ago and no drain queued: the one a pair
 * misses when it commits while its endpoint's drain is ending.
 */
export async function queueOverdueDrains(db: Executor, overdueMs: number): Promise<void> {
  await db.query(
    drainsFor(`(SELECT endpoint_id, now() AS run_at FROM event_endpoints WHERE due_at < now() - make_interval(secs => $1::float8 / 1000))`),
    [overdueMs],
  );
}

/** The slow lane's backlog: attempts due now that wait on their pairs, and the age of the oldest. */
export async function selectSlowLaneBacklog(db: Executor): Promise<{ waiting: number; oldestAgeSeconds: number }> {
  const { rows } = await db.query<{ waiting: number; oldestAgeSeconds: number }>(
    `SELECT count(*)::int AS waiting, coalesce(extract(epoch FROM now() - min(due_at)), 0)::float8 AS "oldestAgeSeconds"
     FROM event_endpoints WHERE due_at <= now()`,
  );
  return rows[0]!;
}

/** keysetPage query: $1 = endpoint id, $2 = merchant id. */
export const LIST_DELIVERIES_SQL = `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE endpoint_id = $1 AND merchant_id = $2`;

/** Every attempt at an event, to any endpoint, oldest first. */
export async function selectEventAttempts(db: Executor, merchantId: string, eventId: string): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE event_id = $1 AND merchant_id = $2 ORDER BY created_at, id COLLATE "C"`,
    [eventId, merchantId],
  );
  return rows;
}

/**
 * A test ping, after it was sent: its WEBHOOK_TEST event (counted as the outcome), the pair and the one
 * attempt, in one statement. Throws a foreign key violation when the endpoint was deleted meanwhile.
 */
export async function insertTestDelivery(
  db: Executor, e: { body: string; data: unknown; createdAt: Date }, d: Omit<AttemptRecord, 'series' | 'attempt' | 'manual' | 'eventType'>,
): Promise<DeliveryRow> {
  const { rows } = await db.query<DeliveryRow>(
    `WITH ev AS (
       INSERT INTO events (id, merchant_id, type, data, body, created_at, succeeded, failed)
       VALUES ($1, $2, 'WEBHOOK_TEST', $3::jsonb, $4, $5, $6::boolean::int, (NOT $6::boolean)::int) RETURNING id, created_at),
     pair AS (
       INSERT INTO event_endpoints (event_id, endpoint_id, merchant_id, event_created_at, state)
       SELECT id, $7, $2, created_at, CASE WHEN $6 THEN 'SUCCEEDED' ELSE 'FAILED' END FROM ev)
     INSERT INTO webhook_deliveries
       (id, merchant_id, endpoint_id, event_id, event_type, series, attempt, status_code, success, error, duration_ms, manual)
     SELECT $8, $2, $7, ev.id, 'WEBHOOK_TEST', 1, 1, $9, $6, $10, $11, true FROM ev
     RETURNING ${DELIVERY_COLUMNS}`,
    [d.eventId, d.merchantId, JSON.stringify(e.data), e.body, e.createdAt, d.success, d.endpointId, d.id, d.statusCode, d.error, d.durationMs],
  );
  return rows[0]!;
}
