import type pg from 'pg';
import { connectionStringOf } from '../platform/db.js';
import type { Runtime } from '../runtime.js';
import { enqueueProcessing, processWithdrawal } from './withdrawal-processing.service.js';

/**
 * A withdrawal's processing starts in the process that created it, right after the create's commit, when
 * that process runs a worker (`serve`) with a slot free: no job is queued for it, so no job pick-up, no
 * NOTIFY and no hop between processes lie between the create and the send (docs/withdrawals.md#processing-and-crash-safety).
 * Otherwise (an `api` process, or every slot busy) the create queues the processing job as before. Either
 * way the recovery sweep is the backstop: a withdrawal left PENDING or PROCESSING by a process that died
 * gets a processing job once it has not moved for WITHDRAWAL_STUCK_AFTER_MS.
 */
export interface Starter {
  /** Whether a start now would run at once; the create queues the job instead when not. */
  hasRoom(): boolean;
  /** Processes the withdrawal in this process; when it has no room after all, or the run fails, queues its job. */
  start(withdrawalId: string): void;
}

// Per database (its connection string), the starters of this process's workers: a create starts only what its own database holds.
const starters = new Map<string, Set<Starter>>();

/** A starter of this process for `pool`'s database with room now, if any. */
export function starterFor(pool: pg.Pool): Starter | undefined {
  for (const s of starters.get(connectionStringOf(pool)) ?? []) if (s.hasRoom()) return s;
  return undefined;
}

/**
 * Registers the worker's starter: at most `slots` withdrawals processed at once. `stop()` takes no more and
 * waits for the runs under way.
 */
export function takeWithdrawalStarts(rt: Runtime, slots: number): { stop(): Promise<void> } {
  const running = new Set<Promise<void>>();
  const queueJob = (id: string) =>
    enqueueProcessing(rt.pool, id).catch(() => {
      // The database is unreachable: the sweep finds the withdrawal once it is stuck.
    });
  const starter: Starter = {
    hasRoom: () => running.size < slots,
    start(id) {
      if (!starter.hasRoom()) return void queueJob(id);
      // A run that fails (the database or the PSP unreachable) is retried by the queue, asking the PSP first.
      const run = processWithdrawal(rt, id).catch(() => queueJob(id)).finally(() => running.delete(run));
      running.add(run);
    },
  };
  const key = connectionStringOf(rt.pool);
  const set = starters.get(key) ?? new Set<Starter>();
  starters.set(key, set.add(starter));
  return {
    async stop() {
      set.delete(starter);
      if (set.size === 0 && starters.get(key) === set) starters.delete(key);
      while (running.size > 0) await Promise.all(running);
    },
  };
}
