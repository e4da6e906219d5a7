import { jobQueuedBy } from '../platform/job-queue-internals.js';

export const DELIVER_TASK = 'webhooks.deliver';
/**
 * The slow lane: one drain job per slow endpoint takes that endpoint's waiting deliveries, which wait on
 * their pairs (event_endpoints.due_at), not as jobs (docs/webhooks.md, "Fairness"; slow-lane.tasks.ts).
 */
export const DRAIN_TASK = 'webhooks.drain';
export const deliveryJobKey = (eventId: string, endpointId: string): string => `webhook:${eventId}:${endpointId}`;

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
 * one row per (event, endpoint). A fast endpoint's pair gets a job in the fast lane, keyed per pair so a
 * new series replaces a pending job of the old one; a slow endpoint's pair must already wait on its row
 * (due_at set, due_attempt 1) and gets its endpoint's drain job. No queue_name: jobs of one queue run one
 * at a time.
 */
export const firstAttemptsOf = (pairs: string): string =>
  `SELECT graphile_worker.add_job('${DELIVER_TASK}',
     json_build_object('eventId', t.event_id, 'endpointId', t.endpoint_id, 'attempt', 1, 'series', t.series),
     job_key => 'webhook:' || t.event_id || ':' || t.endpoint_id, max_attempts => 25)
   FROM ${pairs} t WHERE NOT t.slow
   UNION ALL
   ${drainsFor(`(SELECT endpoint_id, now() AS run_at FROM ${pairs} WHERE slow)`)}`;

/** What a new series waits on (due_at, due_attempt), by its endpoint's lane: due now at attempt 1 when slow, nothing when fast. */
export const waitingColumns = (slow: string): string => `CASE WHEN ${slow} THEN now() END, CASE WHEN ${slow} THEN 1 END`;

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
