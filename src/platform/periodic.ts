import type { TaskList } from 'graphile-worker';
import type { Executor } from './db.js';
import { enqueue } from './jobs.js';

/**
 * Runs `deleteBatch` (one statement deleting at most `batch` rows, returning how many) until a batch comes
 * back short: each batch commits on its own, so no sweep holds many row locks or one long transaction.
 */
export async function deleteInBatches(batch: number, deleteBatch: () => Promise<number>): Promise<number> {
  for (let total = 0; ;) {
    const n = await deleteBatch();
    total += n;
    if (n < batch) return total;
  }
}

/**
 * A job that runs every `everyMs`, once across all worker processes (one job key): queued at worker
 * start due now the first time — a later start keeps the pending run instead of running again — and
 * rescheduled by each run before it works, so a failing run never ends the cycle.
 */
export function periodicTask(db: Executor, task: string, everyMs: number, run: () => Promise<unknown>): {
  tasks: TaskList;
  schedule(): Promise<void>;
} {
  return {
    tasks: {
      [task]: async () => {
        await enqueue(db, task, {}, { jobKey: task, runAt: new Date(Date.now() + everyMs) });
        await run();
      },
    },
    schedule: () => enqueue(db, task, {}, { jobKey: task, jobKeyMode: 'preserve_run_at' }),
  };
}
