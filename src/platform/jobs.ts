import { EventEmitter } from 'node:events';
import pg from 'pg';
import { Logger, run, type Runner, type Task, type TaskList, type WorkerEvents } from 'graphile-worker';
import { connectionStringOf, type Executor } from './db.js';
import { multiHostPoolConfig } from './multi-host-pool.js';
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

/**
 * Session settings of an exclusive run's connection, sent when it connects (no statement): a process that dies
 * closes its socket and the server ends the session at once; a host that vanishes sends nothing, and these
 * keepalives make the server notice within about 25 s rather than the system's two hours.
 */
const KEEPALIVES = '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3';
const LOCK_SQL = 'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked';
const UNLOCK_SQL = 'SELECT pg_advisory_unlock(hashtextextended($1, 0)) AS unlocked';

// Sessions kept this long between runs: sequential payouts reuse one instead of connecting (a server process each) per run.
const SESSION_IDLE_MS = 10_000;
// Exclusive runs under way at once per process; a run beyond waits for a session (runs are bounded by job slots anyway).
const MAX_SESSIONS = 64;

const lockSessions = new WeakMap<pg.Pool, pg.Pool>();

/** Connections of their own to the pool's database (the same host choice and settings), outside the pool. */
function sessionsOf(pool: pg.Pool): pg.Pool {
  let sessions = lockSessions.get(pool);
  if (!sessions) {
    const { Client, base } = multiHostPoolConfig(connectionStringOf(pool));
    sessions = new pg.Pool({
      application_name: 'pixgate', ...base, options: [base.options, KEEPALIVES].filter(Boolean).join(' '), Client,
      max: MAX_SESSIONS, idleTimeoutMillis: SESSION_IDLE_MS, allowExitOnIdle: true,
    });
    // A lost session only frees its name; the run's own statements meet the database's state.
    sessions.on('error', () => {});
    sessions.on('connect', (client) => void client.on('error', () => {}));
    lockSessions.set(pool, sessions);
  }
  return sessions;
}

/**
 * Runs `fn` unless another run of `name` is under way anywhere on the database (every process, every
 * worker); answers whether it ran. A job uses it when two copies of it must never overlap, e.g. when
 * each may call a remote service about the same record: a sweep, a retry and a recovery can all queue
 * one beside a run still waiting on that service.
 *
 * The holder is a session advisory lock on a connection of the run's own, not the pool's: `fn` may wait
 * on a remote service for long, and a pooled connection must never wait on one (nor a transaction stay
 * open), while a session lock needs its session alive for as long as the run. Ending the session releases
 * it, so a run whose process dies (SIGKILL included) frees the name at once, with no expiry to wait for.
 * The run unlocks the name when it ends and its session waits idle for the next run (SESSION_IDLE_MS);
 * a session whose unlock did not answer is closed instead, which frees whatever it held.
 * If the connection itself is lost mid-run, the lock goes with it while `fn` goes on: callers keep their
 * own state checks, which this only makes rare to need.
 */
export async function runExclusive(pool: pg.Pool, name: string, fn: () => Promise<void>): Promise<boolean> {
  const session = await sessionsOf(pool).connect();
  const key = `pixgate:exclusive:${name}`;
  let reusable = false;
  try {
    const { rows } = await session.query<{ locked: boolean }>(LOCK_SQL, [key]);
    if (!rows[0]!.locked) {
      reusable = true;
      return false;
    }
    try {
      await fn();
    } finally {
      reusable = await session.query<{ unlocked: boolean }>(UNLOCK_SQL, [key]).then((r) => r.rows[0]!.unlocked, () => false);
    }
    return true;
  } finally {
    session.release(!reusable);
  }
}

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
 * How often an idle slot looks for a job. A new job wakes idle slots at once (add_job's NOTIFY), so this only
 * bounds how late a job queued for later (a retry, an expiry, a delayed settlement) starts after its time —
 * and every idle slot of every worker process runs one query per interval (docs/performance.md).
 */
export const JOB_POLL_MS = 1_000;

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
      pollInterval: JOB_POLL_MS,
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
