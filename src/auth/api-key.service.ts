import { createHash } from 'node:crypto';
import type pg from 'pg';
import { notFound } from '../platform/errors.js';
import type { Executor } from '../platform/db.js';
import { newId, randomBase62 } from '../platform/ids.js';
import { keysetPage, type Cursors, type Page, type PageRequest } from '../platform/pagination.js';
import { selectMerchant } from '../merchants/merchant.sql.js';
import { apiKeysPageQuery, insertApiKey, revokeApiKey as revokeApiKeyRow, touchApiKey, type ApiKeyRow } from './api-key.sql.js';

/** `pxg_` + 40 base62 characters (docs/contract/access.md#api-keys). */
export const API_KEY_PATTERN = /^pxg_[0-9A-Za-z]{40}$/;

export const hashApiKey = (key: string): Buffer => createHash('sha256').update(key).digest();

export interface IssuedApiKey {
  id: string;
  name: string;
  /** Shown once: only its SHA-256 and last 4 characters are kept. */
  key: string;
  last4: string;
  createdAt: string;
}

/** A key as listed (docs/contract/access.md#api-keys): never the key itself. */
export interface ApiKeyView {
  id: string;
  name: string;
  last4: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const toView = (row: ApiKeyRow): ApiKeyView => ({
  id: row.id, name: row.name, last4: row.last4, createdAt: row.created_at.toISOString(),
  lastUsedAt: row.last_used_at?.toISOString() ?? null, revokedAt: row.revoked_at?.toISOString() ?? null,
});

export async function issueApiKey(db: Executor, merchantId: string, name = 'default'): Promise<IssuedApiKey> {
  if (!(await selectMerchant(db, merchantId))) throw notFound('Merchant');
  const key = `pxg_${randomBase62(40)}`;
  const row = await insertApiKey(db, { id: newId('key'), merchantId, hash: hashApiKey(key), last4: key.slice(-4), name });
  return { id: row.id, name: row.name, key, last4: row.last4, createdAt: row.created_at.toISOString() };
}

export async function revokeApiKey(db: pg.Pool, id: string): Promise<{ id: string; merchantId: string; last4: string; createdAt: string; revokedAt: string }> {
  const row = await revokeApiKeyRow(db, id);
  if (!row) throw notFound('API key');
  return { id: row.id, merchantId: row.merchant_id, last4: row.last4, createdAt: row.created_at.toISOString(), revokedAt: row.revoked_at!.toISOString() };
}

/** `DELETE /me/api-keys/{id}`: the merchant's own key, revoked (401 at its next use). */
export async function revokeOwnApiKey(db: Executor, merchantId: string, id: string): Promise<ApiKeyView> {
  const row = await revokeApiKeyRow(db, id, merchantId);
  if (!row) throw notFound('API key');
  return toView(row);
}

export async function listApiKeys(db: Executor, cursors: Cursors, merchantId: string, page: PageRequest): Promise<Page<ApiKeyView>> {
  const rows = await keysetPage<ApiKeyRow>(db, cursors, { merchantId, list: 'api-keys' }, apiKeysPageQuery(merchantId), page);
  return { items: rows.items.map(toView), pagination: rows.pagination };
}

// Keys whose use is being recorded right now: a burst of requests on a stale key writes once.
const recording = new Set<string>();

/**
 * Records a key's use off the request's path (not awaited), only when the auth read found its
 * last_used_at over a minute old; touchApiKey's own condition keeps other processes from writing twice.
 */
export function noteKeyUse(pool: pg.Pool, keyId: string, stale: boolean): void {
  if (!stale || recording.has(keyId)) return;
  recording.add(keyId);
  touchApiKey(pool, keyId).catch(() => {}).finally(() => recording.delete(keyId));
}
