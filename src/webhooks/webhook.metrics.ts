import client from 'prom-client';
import type pg from 'pg';
import type { ScrapedGauges } from '../platform/metrics.js';
import { selectSlowLaneBacklog } from './delivery.sql.js';

export const webhookAttempts = new client.Counter({
  name: 'pixgate_webhook_attempts_total',
  help: 'Webhook delivery attempts recorded, by outcome: success (2xx), retrying (failed, another attempt queued), failed (4xx or attempts exhausted)',
  labelNames: ['outcome'] as const,
});

/** The outcome label of a recorded delivery attempt. */
export const webhookOutcome = (success: boolean, retrying: boolean) => (success ? 'success' : retrying ? 'retrying' : 'failed');

const slowLaneWaiting = new client.Gauge({
  name: 'pixgate_webhook_slow_lane_waiting', help: 'Webhook attempts due that wait for their slow endpoint\'s drain (they are not jobs)',
});
const slowLaneOldest = new client.Gauge({
  name: 'pixgate_webhook_slow_lane_oldest_waiting_age_seconds', help: 'How long the oldest of them has waited (0 when none)',
});

/** The slow lane's backlog, read at each scrape (the attempts waiting there are rows, not jobs). */
export const slowLaneGauges: ScrapedGauges = {
  gauges: [slowLaneWaiting, slowLaneOldest],
  async read(pool: pg.Pool) {
    const backlog = await selectSlowLaneBacklog(pool);
    slowLaneWaiting.set(backlog.waiting);
    slowLaneOldest.set(backlog.oldestAgeSeconds);
  },
};
