import type { TaskList } from 'graphile-worker';
import type { Executor } from './db.js';
import { enqueue } from './jobs.js';

/**
 * A job that runs every `everyMs`, once across all worker processes (one job key): queued at worker
 * start due now the first time — a later start keeps the pending run instead of running again — and
 * rescheduled by each run before it works, so a failing run never ends the cycle. The pattern of the
 * idempotency prune (http/idempotency-retention.ts), for any periodic sweep.
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
