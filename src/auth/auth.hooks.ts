import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import { AppError } from '../platform/errors.js';
import type { MerchantRow } from '../merchants/merchant.sql.js';
import { JWT_PATTERN, readSessionToken } from './session-token.crypto.js';
import { selectSessionAuth } from './session.sql.js';
import { selectMerchantByKeyHash } from './api-key.sql.js';
import { API_KEY_PATTERN, hashApiKey, noteKeyUse } from './api-key.service.js';
import type { Caller } from './permission.rules.js';

export interface AuthContext {
  merchant: MerchantRow;
  caller: Caller;
}

type SessionContext = AuthContext & { caller: Extract<Caller, { kind: 'session' }> };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the merchant auth hook on every merchant route. */
    auth?: AuthContext;
  }
}

/** The dashboard's session cookie, and the header its non-GET requests carry (CSRF guard, docs/contract/access.md#browser-session). */
export const SESSION_COOKIE = 'pxg_session';
export const CLIENT_HEADER = 'x-pixgate-client';

/** The session cookie's value; its JWT characters need no decoding. */
function sessionCookie(req: FastifyRequest): string | undefined {
  for (const part of req.headers.cookie?.split(';') ?? []) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function bearer(req: FastifyRequest): string | null {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer ([^\s]+)$/.exec(header.trim());
  return match ? match[1]! : null;
}

const unauthorized = (message: string) => new AppError('UNAUTHORIZED', message);

async function keyAuth(pool: pg.Pool, token: string): Promise<AuthContext> {
  if (!API_KEY_PATTERN.test(token)) throw unauthorized('Invalid API key');
  const row = await selectMerchantByKeyHash(pool, hashApiKey(token));
  if (!row || row.key_revoked) throw unauthorized('Invalid or revoked API key');
  if (row.suspended) throw new AppError('FORBIDDEN', 'Merchant is suspended');
  const { key_id, key_role, key_revoked: _revoked, key_stale, ...merchant } = row;
  noteKeyUse(pool, key_id, key_stale);
  return { merchant, caller: { kind: 'apiKey', keyId: key_id, role: key_role } };
}

/**
 * A session JWT: the signature and expiry are checked in process, then its session row (one
 * primary-key read, as costly as the API key's) says whether it was ended and what role the user has now.
 */
async function sessionAuth(pool: pg.Pool, sessionKey: Buffer, token: string, viaCookie: boolean, req: FastifyRequest): Promise<SessionContext> {
  const claims = readSessionToken(sessionKey, token);
  if (!claims) throw unauthorized('Invalid or expired session token');
  const row = await selectSessionAuth(pool, claims.sessionId);
  if (!row || !row.s_live || row.s_user_id !== claims.userId) throw unauthorized('Session ended or expired; log in again');
  if (row.suspended) throw new AppError('FORBIDDEN', 'Merchant is suspended');
  if (viaCookie && req.method !== 'GET' && req.headers[CLIENT_HEADER] !== 'dashboard') {
    throw new AppError('FORBIDDEN', 'A request authenticated by the session cookie needs the header X-Pixgate-Client: dashboard');
  }
  const { s_user_id, s_role, s_live: _live, ...merchant } = row;
  return { merchant, caller: { kind: 'session', userId: s_user_id, sessionId: claims.sessionId, role: s_role, viaCookie } };
}

/**
 * Who calls: `Authorization: Bearer <API key | session JWT>`, else the `pxg_session` cookie. When both
 * are present the header wins and the cookie is not looked at (a bad header is 401 even with a good
 * cookie). Nothing is cached, so a revoked key or an ended session is refused at once.
 */
export async function authenticate(pool: pg.Pool, sessionKey: Buffer, req: FastifyRequest): Promise<AuthContext> {
  if (req.headers.authorization === undefined) {
    const cookie = sessionCookie(req);
    if (cookie) {
      if (!JWT_PATTERN.test(cookie)) throw unauthorized('Invalid or expired session token');
      return sessionAuth(pool, sessionKey, cookie, true, req);
    }
  }
  const token = bearer(req);
  if (!token) throw unauthorized('Missing or malformed Authorization header; expected "Bearer <API key>"');
  if (!API_KEY_PATTERN.test(token) && JWT_PATTERN.test(token)) return sessionAuth(pool, sessionKey, token, false, req);
  return keyAuth(pool, token);
}

/**
 * A session and nothing else (POST /auth/logout, docs/contract/access.md#login): a bearer that is no session token
 * — an API key, garbage — is refused before any lookup, so made-up keys cost no database query on a route
 * outside the unknown-credential limit. A token's signature is checked in process before its row is read.
 */
export async function authenticateSession(pool: pg.Pool, sessionKey: Buffer, req: FastifyRequest): Promise<SessionContext> {
  const cookie = req.headers.authorization === undefined ? sessionCookie(req) : undefined;
  const token = cookie ?? bearer(req);
  if (!token || API_KEY_PATTERN.test(token) || !JWT_PATTERN.test(token)) throw unauthorized('A dashboard session (its token or cookie) is required');
  return sessionAuth(pool, sessionKey, token, cookie !== undefined, req);
}

/** The merchant scope's hook: an API key or a dashboard session (docs/contract/access.md#credentials). */
export const merchantAuth = (pool: pg.Pool, sessionKey: Buffer) => async (req: FastifyRequest) => {
  req.auth = await authenticate(pool, sessionKey, req);
};

/** The operator token guards /admin; comparing digests keeps the comparison constant-time. A JWT never matches. */
export const adminAuth = (adminToken: string) => {
  const expected = createHash('sha256').update(adminToken).digest();
  return async (req: FastifyRequest) => {
    const token = bearer(req);
    const given = createHash('sha256').update(token ?? '').digest();
    if (!token || !timingSafeEqual(given, expected)) throw unauthorized('Invalid or missing admin token');
  };
};
