import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { validationError } from '../platform/errors.js';

// scrypt N=2^15, r=8, p=1: 32 MiB and ~100 ms per hash on the reference machine (2 cores). The
// parameters travel in the stored text, so raising them later leaves old hashes verifiable.
const PARAMS = { N: 1 << 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, o: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...o, maxmem: 256 * o.N! * o.r! + 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `scrypt$N$r$p$<salt>$<hash>` (base64url), with a salt of its own. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

// Verified when the e-mail is unknown, so a wrong e-mail costs the same time as a wrong password.
const DUMMY = hashPassword('not-a-password-of-anyone');

/** Compares in constant time; a null hash (unknown e-mail, invitation not accepted) still spends a hash. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = (stored ?? (await DUMMY)).split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const given = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(given, expected) && stored !== null;
}

/** docs/contract/access.md#passwords: 12 to 128 characters, not the e-mail itself. */
export function checkPasswordRules(field: string, password: string, email: string): void {
  if (password.length < 12) throw validationError(field, 'must be at least 12 characters');
  if (password.length > 128) throw validationError(field, 'must be at most 128 characters');
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) throw validationError(field, 'must not be the e-mail address');
}
