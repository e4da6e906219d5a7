import type { TaskList } from 'graphile-worker';
import type { Executor } from '../db.js';
import { enqueue } from '../jobs.js';

const PRUNE_TASK = 'idempotency.prune';
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const BATCH = 1000;

/**
 * Stored answers are honoured for 24 hours (idempotency.ts); past that a row is only storage — a new
 * request under its key replaces it. The hourly sweep deletes them in batches, so one sweep never holds
 * many row locks or one long transaction.
 */
export async function pruneIdempotencyKeys(db: Executor): Promise<number> {
  for (let total = 0; ;) {
    const { rowCount } = await db.query(
      `DELETE FROM idempotency_keys WHERE (merchant_id, key) IN (
         SELECT merchant_id, key FROM idempotency_keys WHERE created_at <= now() - interval '24 hours' LIMIT $1)`,
      [BATCH],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < BATCH) return total;
  }
}

/** At worker start: due now the first time; a later start keeps the pending hourly run instead of pruning again. */
export const scheduleIdempotencyPrune = (db: Executor) => enqueue(db, PRUNE_TASK, {}, { jobKey: PRUNE_TASK, jobKeyMode: 'preserve_run_at' });

const scheduleNextPrune = (db: Executor) => enqueue(db, PRUNE_TASK, {}, { jobKey: PRUNE_TASK, runAt: new Date(Date.now() + PRUNE_EVERY_MS) });

export const idempotencyTasks = (db: Executor): TaskList => ({
  [PRUNE_TASK]: async () => {
    // Rescheduled first, so a failing sweep never ends the cycle.
    await scheduleNextPrune(db);
    await pruneIdempotencyKeys(db);
  },
});
