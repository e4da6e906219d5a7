import { createHash } from 'node:crypto';
import type pg from 'pg';
import { notFound } from '../platform/errors.js';
import { newId, randomBase62 } from '../platform/ids.js';
import { selectMerchant } from '../merchants/merchant.sql.js';
import { insertApiKey, revokeApiKey as revokeApiKeyRow } from './auth.sql.js';

/** `pxg_` + 40 base62 characters (decisions part 10). */
export const API_KEY_PATTERN = /^pxg_[0-9A-Za-z]{40}$/;

export const hashApiKey = (key: string): Buffer => createHash('sha256').update(key).digest();

export interface IssuedApiKey {
  id: string;
  /** Shown once: only its SHA-256 and last 4 characters are kept. */
  key: string;
  last4: string;
  createdAt: string;
}

export async function issueApiKey(db: pg.Pool | pg.PoolClient, merchantId: string): Promise<IssuedApiKey> {
  if (!(await selectMerchant(db, merchantId))) throw notFound('Merchant');
  const key = `pxg_${randomBase62(40)}`;
  const row = await insertApiKey(db, { id: newId('key'), merchantId, hash: hashApiKey(key), last4: key.slice(-4) });
  return { id: row.id, key, last4: row.last4, createdAt: row.created_at.toISOString() };
}

export async function revokeApiKey(db: pg.Pool, id: string): Promise<{ id: string; merchantId: string; last4: string; createdAt: string; revokedAt: string }> {
  const row = await revokeApiKeyRow(db, id);
  if (!row) throw notFound('API key');
  return { id: row.id, merchantId: row.merchant_id, last4: row.last4, createdAt: row.created_at.toISOString(), revokedAt: row.revoked_at!.toISOString() };
}
