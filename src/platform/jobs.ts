import type pg from 'pg';
import { Logger, run, type Runner, type Task, type TaskList } from 'graphile-worker';
import type { Executor } from './db.js';

/**
 * The job queue is graphile-worker (Postgres-backed, LISTEN/NOTIFY pickup in ~1–4 ms). Jobs are
 * enqueued with the transaction's own client, so a job exists if and only if the state change that
 * caused it committed (transactional outbox). Every task must be safe to run twice.
 */
export interface EnqueueOptions {
  runAt?: Date;
  /** Deduplicates: a second enqueue with the same key replaces the pending job instead of adding one. */
  jobKey?: string;
  maxAttempts?: number;
}

export async function enqueue(tx: Executor, task: string, payload: Record<string, unknown>, opts: EnqueueOptions = {}): Promise<void> {
  await tx.query('SELECT graphile_worker.add_job($1::text, $2::json, run_at => $3::timestamptz, job_key => $4::text, max_attempts => $5::int)', [
    task,
    JSON.stringify(payload),
    opts.runAt ?? null,
    opts.jobKey ?? null,
    opts.maxAttempts ?? 25,
  ]);
}

export type { Task, TaskList };

export const silentLogger = () => new Logger(() => () => {});

export async function startWorker(pool: pg.Pool, taskList: TaskList, opts: { concurrency?: number; log?: Logger } = {}): Promise<Runner> {
  return run({
    pgPool: pool,
    taskList,
    concurrency: opts.concurrency ?? 10,
    noHandleSignals: true,
    pollInterval: 500,
    logger: opts.log ?? silentLogger(),
  });
}
