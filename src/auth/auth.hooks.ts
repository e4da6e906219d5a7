import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import { AppError } from '../platform/errors.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';
import { selectMerchantByKeyHash } from './auth.sql.js';
import { API_KEY_PATTERN, hashApiKey } from './api-keys.js';
import type { Caller } from './permissions.js';

export interface AuthContext {
  merchant: MerchantRow;
  caller: Caller;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the merchant auth hook on every merchant route. */
    auth?: AuthContext;
  }
}

function bearer(req: FastifyRequest): string | null {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer ([^\s]+)$/.exec(header.trim());
  return match ? match[1]! : null;
}

const unauthorized = (message: string) => new AppError('UNAUTHORIZED', message);

/**
 * Resolves the API key on every request (no cache), so a revoked key is refused at once
 * (decisions part 10). A suspended merchant is known but refused everywhere with FORBIDDEN.
 */
export const merchantAuth = (pool: pg.Pool) => async (req: FastifyRequest) => {
  const token = bearer(req);
  if (!token) throw unauthorized('Missing or malformed Authorization header; expected "Bearer <API key>"');
  if (!API_KEY_PATTERN.test(token)) throw unauthorized('Invalid API key');
  const row = await selectMerchantByKeyHash(pool, hashApiKey(token));
  if (!row || row.key_revoked) throw unauthorized('Invalid or revoked API key');
  if (row.suspended) throw new AppError('FORBIDDEN', 'Merchant is suspended');
  const { key_id, key_revoked: _revoked, ...merchant } = row;
  req.auth = { merchant, caller: { kind: 'apiKey', keyId: key_id } };
};

/** The operator token guards /admin; comparing digests keeps the comparison constant-time. */
export const adminAuth = (adminToken: string) => {
  const expected = createHash('sha256').update(adminToken).digest();
  return async (req: FastifyRequest) => {
    const token = bearer(req);
    const given = createHash('sha256').update(token ?? '').digest();
    if (!token || !timingSafeEqual(given, expected)) throw unauthorized('Invalid or missing admin token');
  };
};
