import { jobQueuedBy } from '../platform/job-queue-internals.js';
import { afterCommit, type Executor } from '../platform/db.js';
import { Wakeup } from '../platform/wakeup.js';

/**
 * Webhook deliveries are not jobs: each waits on its (event, endpoint) pair, `event_endpoints.due_at` and
 * `due_attempt` (migrations 0012, 0030), until a worker's dispatcher claims it — or, for an endpoint in the
 * slow lane (`slow_lane`), its endpoint's drain job (docs/webhooks.md, "Dispatch" and "Fairness").
 */
export const DRAIN_TASK = 'webhooks.drain';
/** Delivery jobs of releases before migration 0030 (or of their processes during a rolling upgrade): each hands its attempt to its pair. */
export const DELIVER_TASK = 'webhooks.deliver';

/** Rung after the commit that made deliveries due; the dispatchers (src/webhooks) take it. */
export const DELIVERIES_DUE = new Wakeup('pixgate_deliveries');

/** After the commit of `db`'s transaction: wakes a dispatcher for the `due` deliveries it made due now (none: nothing). */
export function deliveriesDue(db: Executor, due: number): void {
  if (due > 0) afterCommit(db, (pool) => DELIVERIES_DUE.ring(pool));
}

const drainKey = (endpoint: string) => `'webhook-drain:' || ${endpoint}`;

/**
 * The drain jobs that `rows` (a relation with endpoint_id and run_at) call for: one per endpoint, by the
 * earliest run_at, unless that endpoint's drain runs now or already waits to run by then (a running drain
 * takes what is due when it ends, so one endpoint never holds more than one slow-lane slot). `always`: a
 * drain queueing its own next run. Adding a job notifies every idle runner, so a fan-out to a slow
 * endpoint adds none while one is queued.
 */
export const drainsFor = (rows: string, o: { always?: boolean } = {}): string =>
  `SELECT graphile_worker.add_job('${DRAIN_TASK}', json_build_object('endpointId', d.endpoint_id), run_at => d.run_at,
     job_key => ${drainKey('d.endpoint_id')}, max_attempts => 25, priority => 1)
   FROM (SELECT endpoint_id, min(run_at) AS run_at FROM ${rows} r GROUP BY endpoint_id) d
   WHERE ${o.always ? 'true' : `NOT ${jobQueuedBy(drainKey('d.endpoint_id'), 'd.run_at')}`}`;

/**
 * The first attempts of new series: `pairs` names a relation with event_id, endpoint_id, series and slow,
 * one row per (event, endpoint), already waiting on their rows (waitingColumns). A slow endpoint's pairs get
 * their endpoint's drain job; the others wait for a dispatcher, which `due` (how many) wakes after the commit
 * (deliveriesDue). One row; the statement must read it, or no drain is queued.
 */
export const firstAttemptsOf = (pairs: string): string =>
  `SELECT (SELECT count(*) FROM ${pairs} WHERE NOT slow)::int AS due,
     (SELECT count(*) FROM (${drainsFor(`(SELECT endpoint_id, now() AS run_at FROM ${pairs} WHERE slow)`)}) d)::int AS drains`;

/** What a new series waits on (due_at, due_attempt, slow_lane): attempt 1, due now, in its endpoint's lane. */
export const waitingColumns = (slow: string): string => `now(), 1, ${slow}`;

/**
 * The endpoints each new event goes to: every endpoint of the merchant subscribed to its type — or, for
 * an event carrying a withdrawal's clientCallbackUrl, only the merchant's endpoint for that URL (docs/contract/withdrawals.md#client-callback-url:
 * the callback replaces the general endpoints). `events` names a relation with n, id,
 * merchant_id, type and callback_url.
 */
export const targetsOf = (events: string): string =>
  `SELECT e.n, e.id AS event_id, e.merchant_id, w.id AS endpoint_id, w.slow, 1 AS series
   FROM ${events} e CROSS JOIN LATERAL (
     SELECT id, slow FROM webhook_endpoints
     WHERE merchant_id = e.merchant_id AND CASE WHEN e.callback_url IS NULL THEN e.type = ANY (events) ELSE url = e.callback_url END
     ORDER BY id) w`;

/**
 * The stored form of a callback URL. Callers pass the normalised URL already (registrableUrl); this
 * makes the endpoint lookup of emitEvent and the upsert below agree even if one of them did not.
 */
export function callbackUrlKey(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

/**
 * The event counts (`events.pending/succeeded/failed`, which the deliveryStatus filter reads) moved by the pairs
 * whose state a statement changed: `changes` names a relation with event_id, old_state and new_state, one row per
 * pair. Every statement that changes a pair's state includes it as a CTE (a recorded attempt, a new series); a
 * deletion moves them by trigger. Migration 0041 took the update trigger out: it ran, with both transition
 * tables, for every claim of an attempt too, which changes no state (docs/performance.md, fourth round).
 */
export const countsMoved = (changes: string): string =>
  `UPDATE events e SET pending = e.pending + d.p, succeeded = e.succeeded + d.s, failed = e.failed + d.f
   FROM (SELECT event_id, sum((new_state = 'PENDING')::int - (old_state = 'PENDING')::int) AS p,
                sum((new_state = 'SUCCEEDED')::int - (old_state = 'SUCCEEDED')::int) AS s,
                sum((new_state = 'FAILED')::int - (old_state = 'FAILED')::int) AS f
         FROM ${changes} c GROUP BY event_id) d
   WHERE e.id = d.event_id AND (d.p, d.s, d.f) <> (0, 0, 0)`;
