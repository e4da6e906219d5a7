import type { Executor } from '../platform/db.js';
import { addDeliveryJob } from './delivery.sql.js';

export const DELIVER_TASK = 'webhooks.deliver';
/** The slow lane: deliveries to endpoints that time out or answer slowly, in slots of their own (docs/webhooks.md). */
export const DELIVER_SLOW_TASK = 'webhooks.deliver-slow';
export const MAX_DELIVERY_ATTEMPTS = 3;

export interface DeliveryJob {
  eventId: string;
  endpointId: string;
  attempt: number;
  /** 1 = the automatic series; each redeliver starts the next. Absent in jobs queued before series existed. */
  series?: number;
}

/** Wait before attempt n+1 after attempt n failed: base × 4^(n−1) (decisions part 9). */
export const retryDelayMs = (baseMs: number, failedAttempt: number): number => baseMs * 4 ** (failedAttempt - 1);

export const deliveryJobKey = (eventId: string, endpointId: string): string => `webhook:${eventId}:${endpointId}`;

/**
 * One job per (event, endpoint), keyed so that scheduling the next attempt (or a new series) replaces
 * nothing but its own pair. No queue_name: jobs of one queue run one at a time, and a slow receiver must
 * not hold up others. The slow lane's jobs have priority 1, so the fast lane's pick-up never scans past
 * a backlog of them.
 */
export async function enqueueDelivery(db: Executor, job: DeliveryJob, o: { runAt?: Date; slow?: boolean } = {}): Promise<void> {
  await addDeliveryJob(db, { task: o.slow ? DELIVER_SLOW_TASK : DELIVER_TASK, payload: JSON.stringify(job), runAt: o.runAt ?? null,
    key: deliveryJobKey(job.eventId, job.endpointId), priority: o.slow ? 1 : 0 });
}

/**
 * The deliveries of new events, created with them (events.ts runs this in the statement that inserts
 * the events and their event_endpoints rows): `targets` names a relation with event_id, endpoint_id and
 * slow, one row per (event, endpoint) the event goes to; each job gets the payload, key, lane and
 * attempts enqueueDelivery gives.
 */
export const fanOutFrom = (targets: string): string =>
  `SELECT graphile_worker.add_job(CASE WHEN t.slow THEN '${DELIVER_SLOW_TASK}' ELSE '${DELIVER_TASK}' END,
     json_build_object('eventId', t.event_id, 'endpointId', t.endpoint_id, 'attempt', 1),
     job_key => 'webhook:' || t.event_id || ':' || t.endpoint_id, max_attempts => 25, priority => CASE WHEN t.slow THEN 1 ELSE 0 END)
   FROM ${targets} t`;

/**
 * The endpoints each new event goes to: every endpoint of the merchant subscribed to its type — or, for
 * an event carrying a withdrawal's clientCallbackUrl, only the merchant's endpoint for that URL (spec 4.4
 * item 5: the callback replaces the general endpoints). `events` names a relation with n, id,
 * merchant_id, type and callback_url.
 */
export const targetsOf = (events: string): string =>
  `SELECT e.n, e.id AS event_id, e.merchant_id, w.id AS endpoint_id, w.slow
   FROM ${events} e CROSS JOIN LATERAL (
     SELECT id, slow FROM webhook_endpoints
     WHERE merchant_id = e.merchant_id AND CASE WHEN e.callback_url IS NULL THEN e.type = ANY (events) ELSE url = e.callback_url END
     ORDER BY id) w`;
