import { jwtVerify, SignJWT } from 'jose';
import type { Role } from '../auth/permissions.js';
import { deriveKey } from '../platform/secrets.js';

/** A session lives 12 h (decisions part 15); its row may end it sooner. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const PURPOSE = 'session-jwt';
const ALGORITHMS = ['HS256'];

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

/** The claims of a token signed by us and not expired; null for anything else (tampered, expired, foreign). */
export async function readSessionToken(master: Buffer, token: string): Promise<SessionClaims | null> {
  try {
    const { payload } = await jwtVerify(token, deriveKey(master, PURPOSE), { algorithms: ALGORITHMS });
    const { sub, jti, merchantId, role } = payload;
    if (typeof sub !== 'string' || typeof jti !== 'string' || typeof merchantId !== 'string' || typeof role !== 'string') return null;
    return { userId: sub, sessionId: jti, merchantId, role: role as Role };
  } catch {
    return null;
  }
}
