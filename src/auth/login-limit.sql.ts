import type { Executor } from '../platform/db.js';
import type { LoginLimit } from './login-limit.rules.js';

/**
 * Seconds until `subject` may try again (its oldest failure that keeps it at the limit leaves the window), or
 * null when it is under the limit. Reads only: a caller that needs the count to hold takes claimFailure.
 */
export async function retryAfterOf(db: Executor, subject: string, limit: LoginLimit): Promise<number | null> {
  const { rows } = await db.query<{ retry: number }>(
    `SELECT ceil(extract(epoch FROM at + $2::interval - clock_timestamp()))::int AS retry
     FROM auth_failures WHERE subject = $1 AND at > clock_timestamp() - $2::interval
     ORDER BY at DESC OFFSET $3 LIMIT 1`,
    [subject, limit.window, limit.max - 1],
  );
  return rows[0] ? Math.max(1, rows[0].retry) : null;
}

/**
 * Inside the caller's transaction, under a lock per subject (held to its end): drops the subject's failures
 * older than the window, and either answers how many seconds until one more attempt is allowed, or records
 * this attempt as a failure in advance (forgetFailure when it turns out not to be one), so a burst of
 * parallel attempts cannot all pass the count.
 */
export async function claimFailure(db: Executor, subject: string, limit: LoginLimit): Promise<{ retryAfter: number } | { attemptId: number }> {
  await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`auth-failures:${subject}`]);
  await db.query('DELETE FROM auth_failures WHERE subject = $1 AND at <= clock_timestamp() - $2::interval', [subject, limit.window]);
  const retryAfter = await retryAfterOf(db, subject, limit);
  if (retryAfter !== null) return { retryAfter };
  const { rows } = await db.query<{ id: number }>('INSERT INTO auth_failures (subject) VALUES ($1) RETURNING id', [subject]);
  return { attemptId: rows[0]!.id };
}

/**
 * Attempts that turned out not to be failures (a right password, a right code), and with `clear` every
 * failure of that subject (a successful login clears its e-mail's): one statement.
 */
export async function forgetFailures(db: Executor, attemptIds: number[], clear: string | null = null): Promise<void> {
  await db.query('DELETE FROM auth_failures WHERE id = ANY($1::bigint[]) OR subject = $2', [attemptIds, clear]);
}

/** One batch of failures older than `hours` (no limit looks back that far). */
export async function deleteOldFailures(db: Executor, hours: number, batch: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM auth_failures WHERE id IN (
       SELECT id FROM auth_failures WHERE at < now() - make_interval(hours => $1) LIMIT $2)`,
    [hours, batch],
  );
  return rowCount ?? 0;
}
