import client from 'prom-client';
import type pg from 'pg';
import type { ScrapedGauges } from '../platform/metrics.js';
import { selectDeliveryBacklog } from './delivery.sql.js';

export const webhookAttempts = new client.Counter({
  name: 'pixgate_webhook_attempts_total',
  help: 'Webhook delivery attempts recorded, by outcome: success (2xx), retrying (failed, another attempt queued), failed (4xx or attempts exhausted)',
  labelNames: ['outcome'] as const,
});

/** The outcome label of a recorded delivery attempt. */
export const webhookOutcome = (success: boolean, retrying: boolean) => (success ? 'success' : retrying ? 'retrying' : 'failed');

export const deliveriesInFlight = new client.Gauge({
  name: 'pixgate_webhook_deliveries_in_flight', help: 'Webhook attempts this process\'s dispatcher is sending now (the fast lane)',
});

const dispatchWaiting = new client.Gauge({
  name: 'pixgate_webhook_dispatch_waiting', help: 'Webhook attempts due that wait for a dispatcher (the fast lane; they are rows, not jobs)',
});
const dispatchOldest = new client.Gauge({
  name: 'pixgate_webhook_dispatch_oldest_waiting_age_seconds', help: 'How long the oldest of them has waited (0 when none)',
});
const slowLaneWaiting = new client.Gauge({
  name: 'pixgate_webhook_slow_lane_waiting', help: 'Webhook attempts due that wait for their slow endpoint\'s drain (they are not jobs)',
});
const slowLaneOldest = new client.Gauge({
  name: 'pixgate_webhook_slow_lane_oldest_waiting_age_seconds', help: 'How long the oldest of them has waited (0 when none)',
});

/** Both lanes' backlogs, read at each scrape (the attempts waiting there are rows, not jobs). */
export const deliveryGauges: ScrapedGauges = {
  gauges: [dispatchWaiting, dispatchOldest, slowLaneWaiting, slowLaneOldest],
  async read(pool: pg.Pool) {
    const backlog = await selectDeliveryBacklog(pool);
    dispatchWaiting.set(backlog.dispatchWaiting);
    dispatchOldest.set(backlog.dispatchOldestAgeSeconds);
    slowLaneWaiting.set(backlog.slowWaiting);
    slowLaneOldest.set(backlog.slowOldestAgeSeconds);
  },
};
