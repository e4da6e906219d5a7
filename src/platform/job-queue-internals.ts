import type { WorkerEvents } from 'graphile-worker';
import type { Executor } from './db.js';

/**
 * Everything Pixgate relies on in graphile-worker beyond `run()` and `add_job`'s documented use, in one
 * place: its private tables, `force_unlock_workers`, and what its events carry. These are internals of
 * 0.17.3 (pinned) and may change in any release; test/foundation/job-queue-internals.test.ts checks the
 * installed version and every table, column and function named here, and fails on an upgrade.
 *
 * Elsewhere, set-based enqueues call the public `graphile_worker.add_job(...)` with named arguments
 * (charges/charge.sql.ts, refunds/refund.sql.ts, events/event-fanout.sql.ts) and read the public
 * `graphile_worker.jobs` view; the same test checks those arguments and columns.
 */
export const GRAPHILE_WORKER_VERSION = '0.17.3';

/** The arguments of add_job that callers name, with the types they pass. */
export const ADD_JOB_ARGUMENTS = ['identifier', 'payload', 'run_at', 'job_key', 'max_attempts', 'job_key_mode'] as const;

export const ADD_JOB_SQL = `SELECT graphile_worker.add_job($1::text, $2::json, run_at => $3::timestamptz, job_key => $4::text,
  max_attempts => $5::int, job_key_mode => $6::text)`;

/** The columns read or written directly, per private table. */
export const PRIVATE_COLUMNS = {
  _private_jobs: ['id', 'task_id', 'run_at', 'attempts', 'max_attempts', 'key', 'locked_at', 'locked_by'],
  _private_tasks: ['id', 'identifier'],
} as const;

/**
 * SQL condition: a job with key `key` is running, or waits to run by `runAt`. (add_job always notifies
 * every idle runner, replaces a waiting job's run_at, and adds a second job beside a running one.)
 */
export const jobQueuedBy = (key: string, runAt: string): string =>
  `EXISTS (SELECT 1 FROM graphile_worker._private_jobs j WHERE j.key = ${key} AND (j.locked_at IS NOT NULL OR j.run_at <= ${runAt}))`;

/**
 * Unlocks the jobs of worker pools that stopped beating for `deadAfter` (their process died), so live
 * workers run them; graphile-worker itself would wait 4 hours.
 */
export async function forceUnlockDeadWorkers(db: Executor, deadAfter: string): Promise<void> {
  await db.query(`SELECT graphile_worker.force_unlock_workers(coalesce(array_agg(DISTINCT j.locked_by), '{}'))
    FROM graphile_worker._private_jobs j
    WHERE j.locked_by IS NOT NULL AND j.locked_at < now() - interval '${deadAfter}'
      AND NOT EXISTS (SELECT 1 FROM job_worker_heartbeats h WHERE h.worker_id = j.locked_by AND h.seen_at > now() - interval '${deadAfter}')`);
}

/** Releases jobs locked by our own live pools that none of them is running (a lost release). */
export async function unlockOrphanJobs(db: Executor, poolIds: string[], runningJobIds: string[], lockedLongerThan: string): Promise<void> {
  await db.query(
    `UPDATE graphile_worker._private_jobs SET locked_by = NULL, locked_at = NULL
     WHERE locked_by = ANY($1::text[]) AND NOT (id = ANY($2::bigint[])) AND locked_at < now() - interval '${lockedLongerThan}'`,
    [poolIds, runningJobIds],
  );
}

/**
 * graphile-worker 0.17 locks jobs with the id of the worker *pool* (jobs.locked_by), announced by the
 * `pool:create` event, not with the ids of its workers; `job:start`/`job:complete` carry the job.
 */
export function trackWorkerPools(events: WorkerEvents): { poolIds: Set<string>; running: Set<string> } {
  const poolIds = new Set<string>();
  const running = new Set<string>();
  events.on('pool:create', ({ workerPool }) => poolIds.add(workerPool.id));
  events.on('job:start', ({ job }) => running.add(job.id));
  events.on('job:complete', ({ job }) => running.delete(job.id));
  return { poolIds, running };
}

export interface QueueStats {
  task: string;
  waiting: number;
  oldestAgeSeconds: number;
  running: number;
  scheduled: number;
  failed: number;
}

/** Per known task: jobs due and free, the age of the oldest of them, locked, due later, out of attempts. */
export async function selectQueueStats(db: Executor): Promise<QueueStats[]> {
  const { rows } = await db.query<QueueStats>(
    `SELECT t.identifier AS task,
       count(j.id) FILTER (WHERE j.locked_at IS NULL AND j.attempts < j.max_attempts AND j.run_at <= now())::int AS waiting,
       coalesce(extract(epoch FROM now() - min(j.run_at) FILTER (WHERE j.locked_at IS NULL AND j.attempts < j.max_attempts AND j.run_at <= now())), 0)::float8 AS "oldestAgeSeconds",
       count(j.id) FILTER (WHERE j.locked_at IS NOT NULL)::int AS running,
       count(j.id) FILTER (WHERE j.locked_at IS NULL AND j.attempts < j.max_attempts AND j.run_at > now())::int AS scheduled,
       count(j.id) FILTER (WHERE j.locked_at IS NULL AND j.attempts >= j.max_attempts)::int AS failed
     FROM graphile_worker._private_tasks t LEFT JOIN graphile_worker._private_jobs j ON j.task_id = t.id
     GROUP BY t.identifier`,
  );
  return rows;
}
