import type { Executor } from '../platform/db.js';
import { periodicTask } from '../platform/periodic.js';
import { deleteOldLoginFailures, deleteOldSessions } from './session.sql.js';

const RETENTION_TASK = 'sessions.prune';
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const BATCH = 500;
/** Kept a month after their end, for an operator looking into a user's recent logins. */
export const SESSION_KEEP_DAYS = 30;
/** Far past the 15-minute login window: a row older than this no longer counts. */
export const LOGIN_FAILURE_KEEP_HOURS = 24;

async function inBatches(deleteBatch: () => Promise<number>): Promise<number> {
  for (let total = 0; ;) {
    const n = await deleteBatch();
    total += n;
    if (n < BATCH) return total;
  }
}

/** A batch per statement, each committing on its own, so no sweep holds many locks or one long transaction. */
export async function pruneSessions(db: Executor): Promise<{ sessions: number; loginFailures: number }> {
  return {
    sessions: await inBatches(() => deleteOldSessions(db, SESSION_KEEP_DAYS, BATCH)),
    loginFailures: await inBatches(() => deleteOldLoginFailures(db, LOGIN_FAILURE_KEEP_HOURS, BATCH)),
  };
}

export const sessionRetention = (db: Executor) => periodicTask(db, RETENTION_TASK, PRUNE_EVERY_MS, () => pruneSessions(db));
