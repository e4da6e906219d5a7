import type { Executor } from '../platform/db.js';
import { enqueue } from '../platform/jobs.js';

export const DELIVER_TASK = 'webhooks.deliver';
export const MAX_DELIVERY_ATTEMPTS = 3;

export interface DeliveryJob {
  eventId: string;
  endpointId: string;
  attempt: number;
}

/** Wait before attempt n+1 after attempt n failed: base × 4^(n−1) (decisions part 9). */
export const retryDelayMs = (baseMs: number, failedAttempt: number): number => baseMs * 4 ** (failedAttempt - 1);

/**
 * One job per (event, endpoint), keyed so that scheduling the next attempt replaces nothing but its own
 * pair. No queue_name: jobs of one queue run one at a time, and a slow receiver must not hold up others.
 */
export async function enqueueDelivery(db: Executor, job: DeliveryJob, runAt?: Date): Promise<void> {
  await enqueue(db, DELIVER_TASK, { ...job }, { jobKey: `webhook:${job.eventId}:${job.endpointId}`, runAt });
}

/**
 * The deliveries of a new event, created with it (events.ts runs this in the statement that inserts
 * the event): to every endpoint of the merchant subscribed to its type — or, for an event carrying a
 * withdrawal's clientCallbackUrl, only to the merchant's endpoint for that URL (spec 4.4 item 5: the
 * callback replaces the general endpoints). `event` names a relation with the event's id, merchant_id,
 * type and callback_url; each job gets the payload, key and attempts enqueueDelivery gives.
 */
export const fanOutFrom = (event: string): string =>
  `SELECT graphile_worker.add_job('${DELIVER_TASK}', json_build_object('eventId', e.id, 'endpointId', w.id, 'attempt', 1),
     job_key => 'webhook:' || e.id || ':' || w.id, max_attempts => 25)
   FROM ${event} e CROSS JOIN LATERAL (
     SELECT id FROM webhook_endpoints
     WHERE merchant_id = e.merchant_id AND CASE WHEN e.callback_url IS NULL THEN e.type = ANY (events) ELSE url = e.callback_url END
     ORDER BY id) w`;
