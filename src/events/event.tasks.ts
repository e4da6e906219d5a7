import type { Executor } from '../platform/db.js';
import { deleteInBatches, periodicTask } from '../platform/periodic.js';
import { deleteEventsBefore } from './event.sql.js';

const RETENTION_TASK = 'events.prune';
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const BATCH = 500;

/**
 * Deletes events older than `days` with their per-endpoint states and delivery records (cascade), a
 * batch per statement: each batch commits on its own, so no sweep holds many locks or one long
 * transaction, and a delivery racing a deletion finds its event gone and drops itself.
 */
export const pruneEvents = (db: Executor, days: number): Promise<number> => deleteInBatches(BATCH, () => deleteEventsBefore(db, days, BATCH));

export const eventRetention = (db: Executor, days: number) => periodicTask(db, RETENTION_TASK, PRUNE_EVERY_MS, () => pruneEvents(db, days));
