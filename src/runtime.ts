import type pg from 'pg';
import type { Config } from './config.js';
import { buildApp } from './app.js';
import { chargeTasks, scheduleChargeRecovery } from './charges/charge.tasks.js';
import { scheduleWithdrawalRecovery, withdrawalTasks } from './withdrawals/withdrawal.tasks.js';
import { idempotencyRetention } from './platform/http/idempotency-retention.js';
import { webhookTasks } from './webhooks/webhook.tasks.js';
import { drainSweep } from './webhooks/slow-lane.js';
import { eventRetention } from './events/event-retention.js';
import { sessionRetention } from './users/session-retention.js';
import { linkHitRetention } from './payment-links/payment-link.tasks.js';
import { startWorkers } from './platform/jobs.js';
import { Cursors } from './platform/pagination.js';
import { deriveKey } from './platform/secrets.js';
import type { PixProvider } from './providers/provider.js';
import { createSimulator } from './providers/simulator/simulator.js';
import { createApiPixProvider } from './providers/api-pix/api-pix-provider.js';
import { scheduleUnmatchedRecovery, unmatchedTasks } from './unmatched/unmatched.tasks.js';

/** What every entry point (server, worker, CLI, tests) wires together from one Config and one pool. */
export interface Runtime {
  config: Config;
  pool: pg.Pool;
  cursors: Cursors;
  provider: PixProvider;
}

export function createRuntime(config: Config, pool: pg.Pool): Runtime {
  const rt = { config, pool, cursors: new Cursors(deriveKey(config.encryptionKey, 'cursor')) } as Runtime;
  rt.provider = config.pixProvider === 'api-pix' ? createApiPixProvider(rt) : createSimulator(rt);
  return rt;
}

export { buildApp as buildHttp };

/**
 * Runners over one queue: a runner only takes jobs of the tasks it knows. Webhook deliveries wait
 * on remote receivers (up to WEBHOOK_TIMEOUT_MS each) while holding no database connection, so they get
 * many slots of their own and ten slow receivers cannot hold up payouts, refunds or expiry. Deliveries
 * to slow endpoints, and a merchant's beyond its share of the fast slots, wait on their pairs for the slow
 * lane's drains, one slot per slow endpoint (src/webhooks/slow-lane.ts).
 */
export async function runWorker(rt: Runtime, concurrency = 10): Promise<{ stop(): Promise<void> }> {
  const deliveries = webhookTasks(rt, concurrency * 5);
  const retention = eventRetention(rt.pool, rt.config.eventRetentionDays);
  const sessions = sessionRetention(rt.pool);
  const sweep = drainSweep(rt.pool);
  const idempotency = idempotencyRetention(rt.pool);
  const linkHits = linkHitRetention(rt.pool);
  const money = {
    ...chargeTasks(rt), ...withdrawalTasks(rt), ...idempotency.tasks, ...retention.tasks, ...sessions.tasks, ...sweep.tasks, ...linkHits.tasks,
    ...unmatchedTasks(rt), ...rt.provider.tasks?.(),
  };
  const worker = await startWorkers(rt.pool, [
    { taskList: money, concurrency }, { taskList: deliveries.fast, concurrency: concurrency * 5 },
    { taskList: deliveries.slow, concurrency: concurrency * 2 },
  ]);
  await Promise.all([scheduleChargeRecovery(rt), scheduleWithdrawalRecovery(rt), idempotency.schedule(), retention.schedule(), sessions.schedule(), sweep.schedule(), linkHits.schedule(),
    scheduleUnmatchedRecovery(rt), rt.provider.scheduleJobs?.()]);
  return worker;
}
