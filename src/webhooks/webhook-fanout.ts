import type { EventType } from '../events/events.js';
import type { Tx } from '../platform/db.js';
import { enqueue } from '../platform/jobs.js';
import { enqueueFirstDeliveries } from './webhook.sql.js';

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
export async function enqueueDelivery(tx: Tx, job: DeliveryJob, runAt?: Date): Promise<void> {
  await enqueue(tx, DELIVER_TASK, { ...job }, { jobKey: `webhook:${job.eventId}:${job.endpointId}`, runAt });
}

/**
 * Creates the deliveries of a new event in its own transaction: to every endpoint of the merchant
 * subscribed to its type — or, for an event carrying a withdrawal's clientCallbackUrl, only to the
 * merchant's endpoint for that URL (spec 4.4 item 5: the callback replaces the general endpoints).
 */
export async function fanOut(tx: Tx, event: { id: string; merchantId: string; type: EventType; callbackUrl: string | null }): Promise<void> {
  await enqueueFirstDeliveries(tx, DELIVER_TASK, event);
}
