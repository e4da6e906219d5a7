import type { AnyEventType } from '../events/events.js';
import type { Executor } from '../platform/db.js';

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
       UPDATE event_endpoints SET state = $13 WHERE event_id = $4 AND endpoint_id = $3 AND series = $6 AND state = 'PENDING'
         AND $13::text IS NOT NULL AND EXISTS (SELECT 1 FROM rec)),
     lane AS (UPDATE webhook_endpoints SET slow = $14 WHERE id = $3 AND slow <> $14 AND EXISTS (SELECT 1 FROM rec))
     SELECT EXISTS (SELECT 1 FROM rec) AS recorded`,
    [d.id, d.merchantId, d.endpointId, d.eventId, d.eventType, d.series, d.attempt, d.statusCode, d.success, d.error, d.durationMs,
      d.manual, o.final, o.slow],
  );
  return rows[0]!.recorded;
}

/** A delivery job in its lane (task and priority), keyed per (event, endpoint). */
export async function addDeliveryJob(
  db: Executor, j: { task: string; payload: string; runAt: Date | null; key: string; priority: number },
): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1::text, $2::json, run_at => $3::timestamptz, job_key => $4::text, max_attempts => 25, priority => $5::int)`,
    [j.task, j.payload, j.runAt, j.key, j.priority],
  );
}

/** Schedules the next attempt of a series, only while it is still the pair's current one (FOR UPDATE waits out a redeliver). */
export async function enqueueNextAttempt(
  db: Executor, job: { eventId: string; endpointId: string; series: number }, payload: string,
  o: { task: string; runAt: Date; key: string; priority: number },
): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1::text, $2::json, run_at => $3::timestamptz, job_key => $4::text, max_attempts => 25, priority => $5::int)
     FROM (SELECT 1 FROM event_endpoints WHERE event_id = $6 AND endpoint_id = $7 AND series = $8 FOR UPDATE) current_series`,
    [o.task, payload, o.runAt, o.key, o.priority, job.eventId, job.endpointId, job.series],
  );
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
