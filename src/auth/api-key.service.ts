import { createHash } from 'node:crypto';
import type pg from 'pg';
import { AppError, notFound } from '../platform/errors.js';
import type { Executor } from '../platform/db.js';
import { newId, randomBase62 } from '../platform/ids.js';
import { keysetPage, type Cursors, type Page, type PageRequest } from '../platform/pagination.js';
import { selectMerchant } from '../merchants/merchant.sql.js';
import { apiKeysPageQuery, insertApiKey, revokeApiKey as revokeApiKeyRow, touchApiKey, type ApiKeyRow } from './api-key.sql.js';
import { defaultKeyRole, mayMintKey, type KeyRole, type Role } from './permission.rules.js';

/** `pxg_` + 40 base62 characters (docs/contract/access.md#api-keys). */
export const API_KEY_PATTERN = /^pxg_[0-9A-Za-z]{40}$/;

export const hashApiKey = (key: string): Buffer => createHash('sha256').update(key).digest();

export interface IssuedApiKey {
  id: string;
  name: string;
  /** Shown once: only its SHA-256 and last 4 characters are kept. */
  key: string;
  last4: string;
  role: KeyRole;
  createdBy: string | null;
  createdAt: string;
}

/** A key as listed (docs/contract/access.md#api-keys): never the key itself. */
export interface ApiKeyView {
  id: string;
  name: string;
  last4: string;
  role: KeyRole;
  createdBy: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const toView = (row: ApiKeyRow): ApiKeyView => ({
  id: row.id, name: row.name, last4: row.last4, role: row.role, createdBy: row.created_by, createdAt: row.created_at.toISOString(),
  lastUsedAt: row.last_used_at?.toISOString() ?? null, revokedAt: row.revoked_at?.toISOString() ?? null,
});

/** The operator's key (and the demo merchant's): named `default`, FULL, made by no user. */
export async function issueApiKey(
  db: Executor, merchantId: string, o: { name: string; role: KeyRole; createdBy: string | null } = { name: 'default', role: 'FULL', createdBy: null },
): Promise<IssuedApiKey> {
  if (!(await selectMerchant(db, merchantId))) throw notFound('Merchant');
  const key = `pxg_${randomBase62(40)}`;
  const row = await insertApiKey(db, { id: newId('key'), merchantId, hash: hashApiKey(key), last4: key.slice(-4), ...o });
  return { id: row.id, name: row.name, key, last4: row.last4, role: row.role, createdBy: row.created_by, createdAt: row.created_at.toISOString() };
}

/**
 * `POST /me/api-keys`: a key of the role asked for, or the widest the user may mint; a role beyond the
 * user's own rights is 403 (docs/contract/access.md#key-roles).
 */
export function issueOwnApiKey(db: Executor, merchantId: string, user: { userId: string; role: Role }, o: { name: string; role?: KeyRole }): Promise<IssuedApiKey> {
  const role = o.role ?? defaultKeyRole(user.role);
  if (!role || !mayMintKey(user.role, role)) throw new AppError('FORBIDDEN', `Role ${user.role} may not make ${role ? `a ${role}` : 'an'} API key`);
  return issueApiKey(db, merchantId, { name: o.name, role, createdBy: user.userId });
}

export async function revokeApiKey(db: pg.Pool, id: string): Promise<{ id: string; merchantId: string; last4: string; role: KeyRole; createdBy: string | null; createdAt: string; revokedAt: string }> {
  const row = await revokeApiKeyRow(db, id);
  if (!row) throw notFound('API key');
  return {
    id: row.id, merchantId: row.merchant_id, last4: row.last4, role: row.role, createdBy: row.created_by,
    createdAt: row.created_at.toISOString(), revokedAt: row.revoked_at!.toISOString(),
  };
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
