import type { Role } from '../auth/permission.rules.js';
import type { Executor } from '../platform/db.js';
import type { KeysetQuery } from '../platform/pagination.js';

export interface UserRow {
  id: string;
  merchant_id: string;
  email: string;
  name: string;
  role: Role;
  password_hash: string | null;
  totp_secret: string | null;
  totp_enabled: boolean;
  totp_last_step: number | null;
  created_at: Date;
  last_login_at: Date | null;
}

export const USERS_EMAIL_UNIQUE = 'users_email';

export async function insertUser(db: Executor, u: { id: string; merchantId: string; email: string; name: string; role: Role }): Promise<UserRow> {
  const { rows } = await db.query<UserRow>(
    'INSERT INTO users (id, merchant_id, email, name, role) VALUES ($1, $2, $3, $4, $5) RETURNING *',
    [u.id, u.merchantId, u.email, u.name, u.role],
  );
  return rows[0]!;
}

export async function insertInvitation(db: Executor, i: { tokenHash: Buffer; userId: string; expiresAt: Date }): Promise<void> {
  await db.query('INSERT INTO invitations (token_hash, user_id, expires_at) VALUES ($1, $2, $3)', [i.tokenHash, i.userId, i.expiresAt]);
}

/** Uses the invitation if it is live; the user it invites, else undefined (unknown, used or expired). */
export async function useInvitation(db: Executor, tokenHash: Buffer): Promise<string | undefined> {
  const { rows } = await db.query<{ user_id: string }>(
    `UPDATE invitations SET used_at = now_ms() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
    [tokenHash],
  );
  return rows[0]?.user_id;
}

export async function selectUser(db: Executor, merchantId: string, id: string, lock = false): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    `SELECT * FROM users WHERE id = $1 AND merchant_id = $2${lock ? ' FOR UPDATE' : ''}`, [id, merchantId],
  );
  return rows[0];
}

export async function selectUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE id = $1', [id]);
  return rows[0];
}

export async function selectUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE lower(email) = lower($1)', [email]);
  return rows[0];
}

export const usersPageQuery = (merchantId: string): KeysetQuery => ({ sql: 'SELECT * FROM users WHERE merchant_id = $1', params: [merchantId] });

/** Locks the merchant's OWNER rows: two concurrent demotions cannot both see another OWNER left. */
export async function lockOwnerIds(db: Executor, merchantId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM users WHERE merchant_id = $1 AND role = 'OWNER' ORDER BY id FOR UPDATE`, [merchantId],
  );
  return rows.map((r) => r.id);
}

export async function updateUserRole(db: Executor, id: string, role: Role): Promise<UserRow> {
  const { rows } = await db.query<UserRow>('UPDATE users SET role = $2 WHERE id = $1 RETURNING *', [id, role]);
  return rows[0]!;
}

/** Its sessions and invitations go with it (ON DELETE CASCADE): its tokens stop working at once. */
export async function deleteUser(db: Executor, id: string): Promise<void> {
  await db.query('DELETE FROM users WHERE id = $1', [id]);
}

export async function setPassword(db: Executor, id: string, hash: string, name?: string): Promise<UserRow> {
  const { rows } = await db.query<UserRow>(
    'UPDATE users SET password_hash = $2, name = coalesce($3, name) WHERE id = $1 RETURNING *', [id, hash, name ?? null],
  );
  return rows[0]!;
}

export async function touchLastLogin(db: Executor, id: string): Promise<UserRow> {
  const { rows } = await db.query<UserRow>('UPDATE users SET last_login_at = now_ms() WHERE id = $1 RETURNING *', [id]);
  return rows[0]!;
}

/** A new pending secret; refused (undefined) while TOTP is on. */
export async function setPendingTotp(db: Executor, id: string, sealed: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    'UPDATE users SET totp_secret = $2, totp_last_step = NULL WHERE id = $1 AND NOT totp_enabled RETURNING *', [id, sealed],
  );
  return rows[0];
}

/**
 * Records `step` as used, only if it is later than the last one used: the one statement that both
 * checks and marks, so a code is accepted once even by two processes at the same instant.
 */
export async function useTotpStep(db: Executor, id: string, step: number): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE users SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2)', [id, step],
  );
  return rowCount === 1;
}

export async function setTotpEnabled(db: Executor, id: string, enabled: boolean): Promise<UserRow> {
  const { rows } = await db.query<UserRow>(
    `UPDATE users SET totp_enabled = $2, totp_secret = CASE WHEN $2 THEN totp_secret END WHERE id = $1 RETURNING *`, [id, enabled],
  );
  return rows[0]!;
}

/** The user a live invitation names, without using it. */
export async function selectInvitedUser(db: Executor, tokenHash: Buffer): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    `SELECT u.* FROM invitations i JOIN users u ON u.id = i.user_id
     WHERE i.token_hash = $1 AND i.used_at IS NULL AND i.expires_at > now()`,
    [tokenHash],
  );
  return rows[0];
}
