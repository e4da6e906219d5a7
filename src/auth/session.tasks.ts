import type { Executor } from '../platform/db.js';
import { deleteInBatches, periodicTask } from '../platform/periodic.js';
import { deleteOldFailures } from './login-limit.sql.js';
import { deleteOldSessions } from './session.sql.js';

const RETENTION_TASK = 'sessions.prune';
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const BATCH = 500;
/** Kept a month after their end, for an operator looking into a user's recent logins. */
export const SESSION_KEEP_DAYS = 30;
/** Far past every login limit's window (15 minutes at most): a row older than this no longer counts. */
export const LOGIN_FAILURE_KEEP_HOURS = 24;

/** Sessions over for SESSION_KEEP_DAYS and login-limit failures past LOGIN_FAILURE_KEEP_HOURS, in batches. */
export async function pruneSessions(db: Executor): Promise<{ sessions: number; loginFailures: number }> {
  return {
    sessions: await deleteInBatches(BATCH, () => deleteOldSessions(db, SESSION_KEEP_DAYS, BATCH)),
    loginFailures: await deleteInBatches(BATCH, () => deleteOldFailures(db, LOGIN_FAILURE_KEEP_HOURS, BATCH)),
  };
}

export const sessionRetention = (db: Executor) => periodicTask(db, RETENTION_TASK, PRUNE_EVERY_MS, () => pruneSessions(db));
