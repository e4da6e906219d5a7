import type { Executor } from '../db.js';
import { deleteInBatches, periodicTask } from '../periodic.js';
import { deleteExpiredKeys, deleteSilentProcesses } from './idempotency.sql.js';

const PRUNE_TASK = 'idempotency.prune';
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const BATCH = 1000;

/**
 * Stored answers are honoured for 24 hours (idempotency.ts); past that a row is only storage — a new
 * request under its key replaces it. The hourly sweep deletes them in batches, and the heartbeats of
 * processes gone for an hour (idempotency-claim.ts).
 */
export const pruneIdempotencyKeys = (db: Executor): Promise<number> => deleteInBatches(BATCH, () => deleteExpiredKeys(db, BATCH));

export const idempotencyRetention = (db: Executor) =>
  periodicTask(db, PRUNE_TASK, PRUNE_EVERY_MS, async () => [await pruneIdempotencyKeys(db), await deleteSilentProcesses(db)]);
