import type { Executor } from '../platform/db.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';
import type { KeysetQuery } from '../platform/pagination.js';
import type { KeyRole } from './permission.rules.js';

export interface ApiKeyRow {
  id: string;
  merchant_id: string;
  name: string;
  last4: string;
  role: KeyRole;
  /** The user who made it; null for the operator's keys. */
  created_by: string | null;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const COLUMNS = 'id, merchant_id, name, last4, role, created_by, created_at, revoked_at, last_used_at';

export type KeyAuthRow = MerchantRow & { key_id: string; key_role: KeyRole; key_revoked: boolean; key_stale: boolean };

/** `key_stale`: last_used_at is more than a minute old, so this use should be recorded (docs/contract/access.md#api-keys). */
export async function selectMerchantByKeyHash(db: Executor, hash: Buffer): Promise<KeyAuthRow | undefined> {
  const { rows } = await db.query<KeyAuthRow>(
    `SELECT m.*, k.id AS key_id, k.role AS key_role, k.revoked_at IS NOT NULL AS key_revoked,
       (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute') AS key_stale
     FROM api_keys k JOIN merchants m ON m.id = k.merchant_id WHERE k.key_hash = $1`,
    [hash],
  );
  return rows[0];
}

/** Writes only when the last recorded use is over a minute old: at most one write a minute per key, whatever the traffic. */
export async function touchApiKey(db: Executor, id: string): Promise<void> {
  await db.query(
    `UPDATE api_keys SET last_used_at = now_ms() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [id],
  );
}

export async function insertApiKey(
  db: Executor, row: { id: string; merchantId: string; hash: Buffer; last4: string; name: string; role: KeyRole; createdBy: string | null },
): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, merchant_id, key_hash, last4, name, role, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [row.id, row.merchantId, row.hash, row.last4, row.name, row.role, row.createdBy],
  );
  return rows[0]!;
}

/** Revokes by id; with `merchantId`, only that merchant's key (another merchant's id is not found). */
export async function revokeApiKey(db: Executor, id: string, merchantId: string | null = null): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now_ms()) WHERE id = $1 AND ($2::text IS NULL OR merchant_id = $2)
     RETURNING ${COLUMNS}`,
    [id, merchantId],
  );
  return rows[0];
}

export const apiKeysPageQuery = (merchantId: string): KeysetQuery => ({
  sql: `SELECT ${COLUMNS} FROM api_keys WHERE merchant_id = $1`, params: [merchantId],
});
