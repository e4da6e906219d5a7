import type { Executor } from '../platform/db.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';
import type { Role } from './permission.rules.js';

export async function insertSession(db: Executor, s: { id: string; userId: string; expiresAt: Date }): Promise<void> {
  await db.query('INSERT INTO sessions (id, user_id, expires_at) VALUES ($1, $2, $3)', [s.id, s.userId, s.expiresAt]);
}

export type SessionAuthRow = MerchantRow & { s_user_id: string; s_role: Role; s_live: boolean };

/**
 * What a merchant request needs from a session, in one primary-key lookup (like the API key's): its
 * merchant, its user's current role, and whether it is still live (not ended, not expired).
 */
export async function selectSessionAuth(db: Executor, sessionId: string): Promise<SessionAuthRow | undefined> {
  const { rows } = await db.query<SessionAuthRow>(
    `SELECT m.*, s.user_id AS s_user_id, u.role AS s_role, (s.ended_at IS NULL AND s.expires_at > now()) AS s_live
     FROM sessions s JOIN users u ON u.id = s.user_id JOIN merchants m ON m.id = u.merchant_id WHERE s.id = $1`,
    [sessionId],
  );
  return rows[0];
}

export async function endSession(db: Executor, id: string): Promise<void> {
  await db.query('UPDATE sessions SET ended_at = now_ms() WHERE id = $1 AND ended_at IS NULL', [id]);
}

/** Ends every open session of the user, but `keep` (the one changing its own password). */
export async function endUserSessions(db: Executor, userId: string, keep: string | null = null): Promise<void> {
  await db.query(
    'UPDATE sessions SET ended_at = now_ms() WHERE user_id = $1 AND ended_at IS NULL AND id IS DISTINCT FROM $2', [userId, keep],
  );
}

/**
 * One batch of sessions over (ended, or expired) for longer than `days`: a token of one is refused
 * anyway, the row only served revocation. No index on the end: a batch scans the table, which holds
 * people's logins, not requests.
 */
export async function deleteOldSessions(db: Executor, days: number, batch: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM sessions WHERE id IN (
       SELECT id FROM sessions WHERE coalesce(ended_at, expires_at) < now() - make_interval(days => $1) LIMIT $2)`,
    [days, batch],
  );
  return rowCount ?? 0;
}
