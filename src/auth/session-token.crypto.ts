import { createHmac, timingSafeEqual } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Role } from './permission.rules.js';
import { deriveKey } from '../platform/secrets.js';

/** A session lives 12 h (docs/contract/access.md#sessions); its row may end it sooner. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const PURPOSE = 'session-jwt';

export interface SessionClaims {
  userId: string;
  merchantId: string;
  role: Role;
  sessionId: string;
}

/** A JWT is three base64url parts; anything else is not one of ours. */
export const JWT_PATTERN = /^[\w-]+\.[\w-]+\.[\w-]+$/;

export async function signSessionToken(master: Buffer, c: SessionClaims, expiresAt: Date): Promise<string> {
  return new SignJWT({ merchantId: c.merchantId, role: c.role })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(c.userId)
    .setJti(c.sessionId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(deriveKey(master, PURPOSE));
}

// The only header we sign with (jose writes it as given): anything else — another alg, `none`, extra
// fields — is refused before any cryptography.
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * The claims of a token signed by us and not expired; null for anything else (tampered, expired, foreign).
 * Runs on every request with a session, so it is verified here with node:crypto's HMAC directly: jose's
 * WebCrypto verification costs several times more CPU (bench/auth.ts), and our tokens have exactly one
 * form: the fixed header above, an HMAC-SHA256 signature, and the claims we wrote.
 */
export function readSessionToken(master: Buffer, token: string): SessionClaims | null {
  const [header, payload, signature, extra] = token.split('.');
  if (header !== HEADER || !payload || !signature || extra !== undefined) return null;
  // Compared as canonical base64url text: a signature spelled another way is not ours either.
  const expected = Buffer.from(createHmac('sha256', deriveKey(master, PURPOSE)).update(`${header}.${payload}`).digest('base64url'));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
  const { sub, jti, merchantId, role, exp } = claims;
  if (typeof exp !== 'number' || exp * 1000 <= Date.now()) return null;
  if (typeof sub !== 'string' || typeof jti !== 'string' || typeof merchantId !== 'string' || typeof role !== 'string') return null;
  return { userId: sub, sessionId: jti, merchantId, role: role as Role };
}
