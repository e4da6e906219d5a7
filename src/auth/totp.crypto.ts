import { Secret, TOTP } from 'otpauth';
import { decryptSecret, deriveKey, encryptSecret } from '../platform/secrets.js';

// RFC 6238 as authenticator apps expect it (docs/contract/access.md#totp).
const PERIOD = 30;
const DRIFT_STEPS = 1;
// A key of its own: the operator's ENCRYPTION_KEY never encrypts two kinds of data.
const PURPOSE = 'totp-secret';

const totpOf = (base32: string, label = 'Pixgate') =>
  new TOTP({ issuer: 'Pixgate', label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(base32) });

/** A fresh 160-bit secret (base32) and the otpauth:// URL an authenticator app scans. */
export function newTotpSecret(email: string): { secret: string; otpauthUrl: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, otpauthUrl: totpOf(secret, email).toString() };
}

/**
 * The 30 s step the code belongs to (now, or one step either side), or null when it matches none.
 * The caller marks the step used, so a code is accepted once.
 */
export function totpStep(base32: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(base32).validate({ token: code, timestamp: now, window: DRIFT_STEPS });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
}

export const sealTotpSecret = (master: Buffer, base32: string): string => encryptSecret(deriveKey(master, PURPOSE), base32);
export const openTotpSecret = (master: Buffer, sealed: string): string => decryptSecret(deriveKey(master, PURPOSE), sealed);
