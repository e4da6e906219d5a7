import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { Logger, run, type Runner, type Task, type TaskList, type WorkerEvents } from 'graphile-worker';
import type { Executor } from './db.js';
import { ADD_JOB_SQL, forceUnlockDeadWorkers, trackWorkerPools, unlockOrphanJobs } from './job-queue-internals.js';

/**
 * The job queue is graphile-worker (Postgres-backed, LISTEN/NOTIFY pickup in ~1–4 ms). Jobs are
 * enqueued with the transaction's own client, so a job exists if and only if the state change that
 * caused it committed (transactional outbox). Every task must be safe to run twice.
 */
export interface EnqueueOptions {
  runAt?: Date;
  /** Deduplicates: a second enqueue with the same key replaces the pending job instead of adding one. */
  jobKey?: string;
  /** With jobKey: 'preserve_run_at' keeps a pending job's run time (a periodic job re-queued at every start). */
  jobKeyMode?: 'replace' | 'preserve_run_at';
  maxAttempts?: number;
}

export async function enqueue(tx: Executor, task: string, payload: Record<string, unknown>, opts: EnqueueOptions = {}): Promise<void> {
  await tx.query(
    ADD_JOB_SQL,
    [task, JSON.stringify(payload), opts.runAt ?? null, opts.jobKey ?? null, opts.maxAttempts ?? 25, opts.jobKeyMode ?? 'replace'],
  );
}

export type { Task, TaskList };

export const silentLogger = () => new Logger(() => () => {});

const HEARTBEAT_MS = 5_000;
// A worker silent this long is dead; a job is only taken from it once locked at least as long.
const DEAD_AFTER = '30 seconds';

async function beat(pool: pg.Pool, workerIds: Set<string>): Promise<void> {
  await pool.query(
    `INSERT INTO job_worker_heartbeats (worker_id) SELECT unnest($1::text[])
     ON CONFLICT (worker_id) DO UPDATE SET seen_at = now()`,
    [[...workerIds]],
  );
}

/** Unlocks the jobs of workers that stopped beating (their process died), so live workers run them. */
export async function unlockJobsOfDeadWorkers(pool: pg.Pool): Promise<void> {
  await forceUnlockDeadWorkers(pool, DEAD_AFTER);
  await pool.query(`DELETE FROM job_worker_heartbeats WHERE seen_at < now() - interval '1 hour'`);
}

/**
 * graphile-worker 0.17 does not await releasing a finished job: when the database connection drops at
 * that moment (a restart, a failover) the job stays locked by this live worker, which still beats, for
 * 4 hours. Jobs locked by our workers that none of them is running are released here.
 */
const unlockOrphans = (pool: pg.Pool, workerIds: Set<string>, running: Set<string>) =>
  unlockOrphanJobs(pool, [...workerIds], [...running], DEAD_AFTER);

export interface Worker {
  stop(): Promise<void>;
}

export interface RunnerSpec {
  taskList: TaskList;
  concurrency?: number;
}

/**
 * Runners over one queue (each takes only the jobs of its own tasks) with one liveness loop for the
 * process: the heartbeat of every runner's pool, the unlocking of dead workers' jobs, and of orphans.
 */
export async function startWorkers(pool: pg.Pool, specs: RunnerSpec[], log: Logger = silentLogger()): Promise<Worker> {
  // The pool id is what locks jobs, so it is what must beat, or every job locked 30 s would look abandoned.
  const events: WorkerEvents = new EventEmitter();
  const { poolIds: workerIds, running } = trackWorkerPools(events);
  const runners: Runner[] = [];
  for (const spec of specs) {
    runners.push(await run({
      pgPool: pool,
      taskList: spec.taskList,
      concurrency: spec.concurrency ?? 10,
      noHandleSignals: true,
      pollInterval: 500,
      logger: log,
      events,
    }));
  }
  const tick = () => beat(pool, workerIds).then(() => unlockJobsOfDeadWorkers(pool)).then(() => unlockOrphans(pool, workerIds, running)).catch(() => {});
  await tick();
  const timer = setInterval(tick, HEARTBEAT_MS).unref();
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(runners.map((r) => r.stop()));
      await pool.query('DELETE FROM job_worker_heartbeats WHERE worker_id = ANY($1)', [[...workerIds]]).catch(() => {});
    },
  };
}

export const startWorker = (pool: pg.Pool, taskList: TaskList, opts: { concurrency?: number; log?: Logger } = {}): Promise<Worker> =>
  startWorkers(pool, [{ taskList, concurrency: opts.concurrency }], opts.log);
