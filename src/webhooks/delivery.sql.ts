import type { AnyEventType } from '../events/event.schemas.js';
import type { Executor } from '../platform/db.js';
import { countsMoved, drainsFor } from '../events/event-fanout.sql.js';
import { UNFLUSHED_COMMIT } from '../platform/db.js';

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

/** One claimed attempt: which pair, which attempt of which series, where, with which secrets, which bytes. */
export interface DeliveryTarget {
  event_id: string;
  /** Shared by the events one state change recorded (docs/contract/webhooks.md#events-api). */
  event_created_at: Date;
  endpoint_id: string;
  merchant_id: string;
  series: number;
  attempt: number;
  url: string;
  secret_encrypted: string | null;
  /** The secret before a rotation, while it still signs (null once expired). */
  secret_previous_encrypted: string | null;
  /** The endpoint's lane: its last attempt was slow. */
  slow: boolean;
  event_type: AnyEventType;
  body: string;
}

/**
 * Claims up to `limit` due attempts matching `where` (over event_endpoints, ending in its partial index's
 * predicate), oldest first, each leased for `leaseMs`: due again then, should this worker die mid-attempt.
 * SKIP LOCKED: a pair another worker or a redeliver holds is taken next time. The endpoint and the event
 * come with them, so a claim is one round trip; its commit is not flushed (a lost claim is claimed again).
 */
const claimSql = (where: string) => `
  WITH due AS (
    SELECT event_id, endpoint_id FROM event_endpoints WHERE ${where} ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED),
  claimed AS (
    UPDATE event_endpoints p SET due_at = now() + make_interval(secs => $2::float8 / 1000)
    FROM due d WHERE p.event_id = d.event_id AND p.endpoint_id = d.endpoint_id
    RETURNING p.event_id, p.event_created_at, p.endpoint_id, p.merchant_id, p.series, p.due_attempt)
  SELECT c.event_id, c.event_created_at, c.endpoint_id, c.merchant_id, c.series, c.due_attempt AS attempt, w.url, w.secret_encrypted, w.slow,
         CASE WHEN w.secret_previous_expires_at > now() THEN w.secret_previous_encrypted END AS secret_previous_encrypted,
         e.type AS event_type, e.body
  FROM (SELECT ${UNFLUSHED_COMMIT}) unflushed, claimed c
  JOIN webhook_endpoints w ON w.id = c.endpoint_id JOIN events e ON e.id = c.event_id
  ORDER BY c.event_created_at, c.event_id COLLATE "C"`;

const DISPATCH_CLAIM = claimSql('due_at <= now() AND NOT slow_lane');
const DRAIN_CLAIM = claimSql('endpoint_id = $3 AND due_at <= now() AND slow_lane');

/** A dispatcher's batch: due attempts of every endpoint not in the slow lane. */
export async function claimDispatch(db: Executor, limit: number, leaseMs: number): Promise<DeliveryTarget[]> {
  return (await db.query<DeliveryTarget>(DISPATCH_CLAIM, [limit, leaseMs])).rows;
}

/** A drain's round: due attempts of its one slow endpoint. */
export async function claimDrain(db: Executor, endpointId: string, limit: number, leaseMs: number): Promise<DeliveryTarget[]> {
  return (await db.query<DeliveryTarget>(DRAIN_CLAIM, [limit, leaseMs, endpointId])).rows;
}

/** What became of an attempt, and what its pair does next. */
export interface AttemptRecord {
  id: string; merchantId: string; endpointId: string; eventId: string; eventType: AnyEventType; series: number; attempt: number;
  statusCode: number | null; success: boolean; error: string | null; durationMs: number; manual: boolean;
  /** SUCCEEDED / FAILED end the series; RETRY makes attempt + 1 due at retryAt. */
  next: 'SUCCEEDED' | 'FAILED' | 'RETRY';
  retryAt: Date | null;
  /** The endpoint's lane after this attempt (its speed), where a retry waits. */
  slow: boolean;
}

/**
 * Records a batch of attempts in one statement, its commit not flushed (a lost record means the attempt is
 * sent again: at least once). For each: the record (once per endpoint, event, series and attempt), and its
 * pair moves on — the series ended (the event's counts follow, countsMoved), or the next attempt due in the
 * endpoint's lane, a slow one with its endpoint's drain — unless a redeliver started a newer series meanwhile;
 * each endpoint's lane follows its latest attempt's speed. An attempt to an endpoint (or of an event) deleted
 * while it ran is dropped unrecorded; the rows kept are held until the commit, so a DELETE waits for it.
 * Returns the attempts recorded now (a rerun's are not).
 */
export async function recordAttempts(db: Executor, records: AttemptRecord[]): Promise<AttemptRecord[]> {
  if (records.length === 0) return [];
  // One jsonb parameter rather than an array per column: the planner estimates unnest() of a bound array by its
  // length, so each batch size got a plan of its own, made anew every time (≈ 3 ms); a set from jsonb has one
  // estimate, and the statement is planned once per connection (docs/performance.md).
  const batch = records.map((r, ord) => ({
    id: r.id, merchant_id: r.merchantId, endpoint_id: r.endpointId, event_id: r.eventId, event_type: r.eventType, series: r.series,
    attempt: r.attempt, status_code: r.statusCode, success: r.success, error: r.error, duration_ms: r.durationMs, manual: r.manual,
    next: r.next, retry_at: r.retryAt, slow: r.slow, ord,
  }));
  const { rows } = await db.query<{ recorded: Array<{ endpoint_id: string; event_id: string; series: number; attempt: number }> }>(
    `WITH r AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id text, merchant_id text, endpoint_id text, event_id text, event_type text,
         series int, attempt int, status_code int, success boolean, error text, duration_ms int, manual boolean, next text,
         retry_at timestamptz, slow boolean, ord int)),
     live AS (
       SELECT r.* FROM r JOIN webhook_endpoints w ON w.id = r.endpoint_id JOIN events e ON e.id = r.event_id FOR KEY SHARE OF w, e),
     rec AS (
       INSERT INTO webhook_deliveries
         (id, merchant_id, endpoint_id, event_id, event_type, series, attempt, status_code, success, error, duration_ms, manual)
       SELECT id, merchant_id, endpoint_id, event_id, event_type, series, attempt, status_code, success, error, duration_ms, manual FROM live
       ON CONFLICT ON CONSTRAINT webhook_deliveries_attempt DO NOTHING
       RETURNING endpoint_id, event_id, series, attempt),
     pair AS (
       UPDATE event_endpoints p SET state = CASE WHEN l.next = 'RETRY' THEN 'PENDING' ELSE l.next END,
         due_at = CASE WHEN l.next = 'RETRY' THEN l.retry_at END, due_attempt = CASE WHEN l.next = 'RETRY' THEN l.attempt + 1 END,
         slow_lane = l.slow
       FROM live l
       WHERE p.event_id = l.event_id AND p.endpoint_id = l.endpoint_id AND p.series = l.series AND p.due_attempt = l.attempt AND p.state = 'PENDING'
       RETURNING p.event_id, p.endpoint_id, p.due_at, p.slow_lane, p.state),
     counts AS (${countsMoved(`(SELECT event_id, 'PENDING' AS old_state, state AS new_state FROM pair)`)}),
     lane AS (
       UPDATE webhook_endpoints w SET slow = l.slow
       FROM (SELECT DISTINCT ON (endpoint_id) endpoint_id, slow FROM live ORDER BY endpoint_id, ord DESC) l
       WHERE w.id = l.endpoint_id AND w.slow <> l.slow),
     drains AS (${drainsFor('(SELECT endpoint_id, due_at AS run_at FROM pair WHERE slow_lane AND due_at IS NOT NULL)')})
     SELECT (SELECT count(*) FROM drains) AS drains, ${UNFLUSHED_COMMIT} AS unflushed,
            (SELECT coalesce(json_agg(rec), '[]') FROM rec) AS recorded`,
    [JSON.stringify(batch)],
  );
  const done = new Set(rows[0]!.recorded.map((k) => `${k.endpoint_id}|${k.event_id}|${k.series}|${k.attempt}`));
  return records.filter((r) => done.has(`${r.endpointId}|${r.eventId}|${r.series}|${r.attempt}`));
}

/**
 * Claimed attempts handed, unsent, to the slow lane (their endpoint is slow, or their merchant holds its
 * share of the dispatcher's slots): due now on their pairs, with their endpoints' drains. Unflushed, as a claim.
 */
export async function moveToSlowLane(db: Executor, claimed: Array<Pick<DeliveryTarget, 'event_id' | 'endpoint_id' | 'series' | 'attempt'>>): Promise<void> {
  if (claimed.length === 0) return;
  await db.query(
    `WITH h AS (SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[]) AS h(event_id, endpoint_id, series, attempt)),
     moved AS (
       UPDATE event_endpoints p SET due_at = now(), slow_lane = true FROM h
       WHERE p.event_id = h.event_id AND p.endpoint_id = h.endpoint_id AND p.series = h.series AND p.due_attempt = h.attempt AND p.state = 'PENDING'
       RETURNING p.endpoint_id, p.due_at AS run_at)
     SELECT (SELECT count(*) FROM (${drainsFor('moved')}) d) AS drains, ${UNFLUSHED_COMMIT} AS unflushed`,
    [claimed.map((c) => c.event_id), claimed.map((c) => c.endpoint_id), claimed.map((c) => c.series), claimed.map((c) => c.attempt)],
  );
}

/**
 * A delivery job of an older release hands its attempt to its pair, due now in its endpoint's lane — when the
 * pair waits for nothing else (this release's pairs always do while PENDING) and the attempt was not
 * recorded yet. Returns how many now wait for a dispatcher (0 or 1).
 */
export async function handOverJob(db: Executor, job: { eventId: string; endpointId: string; attempt: number; series: number }): Promise<number> {
  const { rows } = await db.query<{ due: number }>(
    `WITH pair AS (
       UPDATE event_endpoints p SET due_at = now(), due_attempt = $3, slow_lane = w.slow FROM webhook_endpoints w
       WHERE w.id = p.endpoint_id AND p.event_id = $1 AND p.endpoint_id = $2 AND p.series = $4 AND p.state = 'PENDING' AND p.due_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                         WHERE d.endpoint_id = p.endpoint_id AND d.event_id = p.event_id AND d.series = p.series AND d.attempt = $3)
       RETURNING p.endpoint_id, p.due_at AS run_at, p.slow_lane)
     SELECT (SELECT count(*) FROM pair WHERE NOT slow_lane)::int AS due,
            (SELECT count(*) FROM (${drainsFor('(SELECT * FROM pair WHERE slow_lane)')}) d) AS drains`,
    [job.eventId, job.endpointId, job.attempt, job.series],
  );
  return rows[0]!.due;
}

/**
 * A drain's next run, by the endpoint's earliest waiting attempt but never before now (a drain that ran
 * its share goes behind the others waiting); none when nothing waits.
 */
export async function queueNextDrain(db: Executor, endpointId: string): Promise<void> {
  await db.query(
    drainsFor(`(SELECT endpoint_id, greatest(due_at, now()) AS run_at FROM event_endpoints WHERE endpoint_id = $1 AND due_at IS NOT NULL AND slow_lane)`,
      { always: true }),
    [endpointId],
  );
}

/**
 * A drain for every endpoint with a slow-lane attempt due `overdueMs` ago and no drain queued: the one a pair
 * misses when it commits while its endpoint's drain is ending.
 */
export async function queueOverdueDrains(db: Executor, overdueMs: number): Promise<void> {
  await db.query(
    drainsFor(`(SELECT endpoint_id, now() AS run_at FROM event_endpoints
                WHERE due_at < now() - make_interval(secs => $1::float8 / 1000) AND slow_lane)`),
    [overdueMs],
  );
}

export interface DeliveryBacklog {
  /** Attempts due now that wait for a dispatcher, and the age of the oldest. */
  dispatchWaiting: number;
  dispatchOldestAgeSeconds: number;
  /** Attempts due now that wait for their slow endpoint's drain, and the age of the oldest. */
  slowWaiting: number;
  slowOldestAgeSeconds: number;
}

/** The backlog of both lanes (leased attempts count as waiting once their lease is past: their worker died). */
export async function selectDeliveryBacklog(db: Executor): Promise<DeliveryBacklog> {
  const { rows } = await db.query<DeliveryBacklog>(
    `SELECT count(*) FILTER (WHERE NOT slow_lane)::int AS "dispatchWaiting",
            coalesce(extract(epoch FROM now() - min(due_at) FILTER (WHERE NOT slow_lane)), 0)::float8 AS "dispatchOldestAgeSeconds",
            count(*) FILTER (WHERE slow_lane)::int AS "slowWaiting",
            coalesce(extract(epoch FROM now() - min(due_at) FILTER (WHERE slow_lane)), 0)::float8 AS "slowOldestAgeSeconds"
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
  db: Executor, e: { body: string; createdAt: Date },
  d: Pick<AttemptRecord, 'id' | 'merchantId' | 'endpointId' | 'eventId' | 'statusCode' | 'success' | 'error' | 'durationMs'>,
): Promise<DeliveryRow> {
  const { rows } = await db.query<DeliveryRow>(
    `WITH ev AS (
       INSERT INTO events (id, merchant_id, type, body, created_at, succeeded, failed)
       VALUES ($1, $2, 'WEBHOOK_TEST', $3, $4, $5::boolean::int, (NOT $5::boolean)::int) RETURNING id, created_at),
     pair AS (
       INSERT INTO event_endpoints (event_id, endpoint_id, merchant_id, event_created_at, state)
       SELECT id, $6, $2, created_at, CASE WHEN $5 THEN 'SUCCEEDED' ELSE 'FAILED' END FROM ev)
     INSERT INTO webhook_deliveries
       (id, merchant_id, endpoint_id, event_id, event_type, series, attempt, status_code, success, error, duration_ms, manual)
     SELECT $7, $2, $6, ev.id, 'WEBHOOK_TEST', 1, 1, $8, $5, $9, $10, true FROM ev
     RETURNING ${DELIVERY_COLUMNS}`,
    [d.eventId, d.merchantId, e.body, e.createdAt, d.success, d.endpointId, d.id, d.statusCode, d.error, d.durationMs],
  );
  return rows[0]!;
}
