import client from 'prom-client';
import type pg from 'pg';
import { selectQueueStats } from './job-queue-internals.js';

/**
 * Prometheus metrics (docs/contract/running.md#metrics), all in prom-client's default registry so that any slice can
 * add its own with `import client from 'prom-client'` and it shows up at GET /metrics. Counters live in
 * the process that counted them: sum them over the fleet. Gauges read from the database (jobs) are the
 * same in every process: take their max.
 */
client.collectDefaultMetrics();

const httpLabels = ['method', 'route', 'status'] as const;
const httpRequests = new client.Counter({
  name: 'pixgate_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern and status',
  labelNames: httpLabels,
});
const httpDuration = new client.Histogram({
  name: 'pixgate_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by method, route pattern and status',
  labelNames: httpLabels,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
});

// One pair of label children per (method, route, status), so a request costs a Map lookup and two
// increments, not a label hash. Routes are patterns and unmatched URLs one label: the set stays small.
const children = new Map<string, { count: client.Counter.Internal; time: client.Histogram.Internal<string> }>();

export function observeRequest(method: string, route: string | undefined, status: number, elapsedMs: number): void {
  const id = `${method} ${route} ${status}`;
  let c = children.get(id);
  if (!c) {
    const labels = [method, route ?? 'unmatched', String(status)];
    c = { count: httpRequests.labels(...labels), time: httpDuration.labels(...labels) };
    children.set(id, c);
  }
  c.count.inc();
  c.time.observe(elapsedMs / 1000);
}

const jobsWaiting = new client.Gauge({ name: 'pixgate_jobs_waiting', help: 'Jobs due and not taken by a worker, by task', labelNames: ['task'] as const });
const jobsOldest = new client.Gauge({ name: 'pixgate_jobs_oldest_waiting_age_seconds', help: 'How long the oldest due job has waited, by task (0 when none)', labelNames: ['task'] as const });
const jobsRunning = new client.Gauge({ name: 'pixgate_jobs_running', help: 'Jobs locked by a worker, by task', labelNames: ['task'] as const });
const jobsScheduled = new client.Gauge({ name: 'pixgate_jobs_scheduled', help: 'Jobs due later (retries, expiries, periodic sweeps), by task', labelNames: ['task'] as const });
const jobsFailed = new client.Gauge({ name: 'pixgate_jobs_failed', help: 'Jobs that used up their attempts and will not run again, by task', labelNames: ['task'] as const });
const poolInUse = new client.Gauge({ name: 'pixgate_db_pool_in_use', help: 'Database connections of this process checked out of the pool' });
const poolWaiting = new client.Gauge({ name: 'pixgate_db_pool_waiting', help: 'Requests of this process waiting for a database connection' });
const poolTotal = new client.Gauge({ name: 'pixgate_db_pool_connections', help: 'Database connections this process holds open' });
const scrapeErrors = new client.Counter({ name: 'pixgate_metrics_database_errors_total', help: 'Scrapes whose job queue figures could not be read' });

/**
 * Gauges a slice reads from the database at each scrape, handed to the ops routes by the composition
 * root (platform knows no slice). They are reset before every read, so with the database away they are
 * absent rather than stale.
 */
export interface ScrapedGauges {
  readonly gauges: readonly client.Gauge[];
  read(pool: pg.Pool): Promise<void>;
}

/** The text exposition of every metric, with the queue, pool and slices' database figures read now. */
export async function renderMetrics(pool: pg.Pool, scraped: readonly ScrapedGauges[] = []): Promise<string> {
  poolInUse.set(pool.totalCount - pool.idleCount);
  poolWaiting.set(pool.waitingCount);
  poolTotal.set(pool.totalCount);
  // Reset first: with the database away the job figures are absent rather than stale.
  for (const g of [jobsWaiting, jobsOldest, jobsRunning, jobsScheduled, jobsFailed, ...scraped.flatMap((s) => s.gauges)]) g.reset();
  try {
    const stats = await selectQueueStats(pool);
    for (const s of stats) {
      jobsWaiting.set({ task: s.task }, s.waiting);
      jobsOldest.set({ task: s.task }, s.oldestAgeSeconds);
      jobsRunning.set({ task: s.task }, s.running);
      jobsScheduled.set({ task: s.task }, s.scheduled);
      jobsFailed.set({ task: s.task }, s.failed);
    }
    for (const s of scraped) await s.read(pool);
  } catch {
    scrapeErrors.inc(); // the database away: the process's own figures are still worth answering
  }
  return client.register.metrics();
}

export const METRICS_CONTENT_TYPE = client.register.contentType;
