import type { Executor } from '../platform/db.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';

export interface ApiKeyRow {
  id: string;
  merchant_id: string;
  last4: string;
  created_at: Date;
  revoked_at: Date | null;
}

export async function selectMerchantByKeyHash(db: Executor, hash: Buffer): Promise<(MerchantRow & { key_id: string; key_revoked: boolean }) | undefined> {
  const { rows } = await db.query<MerchantRow & { key_id: string; key_revoked: boolean }>(
    `SELECT m.*, k.id AS key_id, k.revoked_at IS NOT NULL AS key_revoked
     FROM api_keys k JOIN merchants m ON m.id = k.merchant_id WHERE k.key_hash = $1`,
    [hash],
  );
  return rows[0];
}

export async function insertApiKey(db: Executor, row: { id: string; merchantId: string; hash: Buffer; last4: string }): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    'INSERT INTO api_keys (id, merchant_id, key_hash, last4) VALUES ($1, $2, $3, $4) RETURNING id, merchant_id, last4, created_at, revoked_at',
    [row.id, row.merchantId, row.hash, row.last4],
  );
  return rows[0]!;
}

export async function revokeApiKey(db: Executor, id: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now_ms()) WHERE id = $1
     RETURNING id, merchant_id, last4, created_at, revoked_at`,
    [id],
  );
  return rows[0];
}
