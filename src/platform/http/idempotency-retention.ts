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

export const scheduleIdempotencyPrune = (db: Executor, runAt?: Date) => enqueue(db, PRUNE_TASK, {}, { jobKey: PRUNE_TASK, runAt });

export const idempotencyTasks = (db: Executor): TaskList => ({
  [PRUNE_TASK]: async () => {
    // Rescheduled first, so a failing sweep never ends the cycle.
    await scheduleIdempotencyPrune(db, new Date(Date.now() + PRUNE_EVERY_MS));
    await pruneIdempotencyKeys(db);
  },
});
