import { storeName } from '../merchants/merchant.service.js';
import { selectMerchant } from '../merchants/merchant.sql.js';
import { withTransaction } from '../platform/db.js';
import { AppError, RateLimited } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Runtime } from '../runtime.js';
import { PER_ADDRESS, PER_EMAIL, subject } from '../auth/login-limit.rules.js';
import { claimFailure, forgetFailures } from '../auth/login-limit.sql.js';
import { verifyPassword } from '../auth/password.crypto.js';
import { signSessionToken, SESSION_TTL_MS } from '../auth/session-token.crypto.js';
import { endSession, insertSession } from '../auth/session.sql.js';
import { openTotpSecret, totpStep } from '../auth/totp.crypto.js';
import { selectUserByEmail, touchLastLogin, useTotpStep, type UserRow } from './user.sql.js';
import { toUser } from './user.service.js';
import type { LoginAnswer } from './user.schemas.js';

const wrongCredentials = () => new AppError('UNAUTHORIZED', 'Invalid email or password');

/** Whether `code` is the user's current TOTP code, used for the first time (a replay is refused). */
export async function acceptTotpCode(rt: Runtime, user: UserRow, code: string): Promise<boolean> {
  if (!user.totp_secret) return false;
  const step = totpStep(openTotpSecret(rt.config.encryptionKey, user.totp_secret), code);
  return step !== null && useTotpStep(rt.pool, user.id, step);
}

/**
 * docs/contract/access.md#login-limits. Every attempt is recorded in advance as a failure of its client address and
 * of its e-mail, in one transaction (so neither count can be passed by parallel guesses, and an attempt
 * refused by either counts for neither), BEFORE the password is hashed: a blocked address costs no hash.
 * A right password un-records the address's failure (wrong or missing TOTP codes are not the address's
 * failures); the e-mail's is un-recorded for a missing code, kept for a wrong one, and a success clears them all.
 * An unknown e-mail costs one password hash like a known one, and gets the same message.
 */
export async function login(rt: Runtime, input: { email: string; password: string; totp?: string }, ip: string): Promise<{ answer: LoginAnswer; sessionId: string }> {
  const email = input.email.trim().toLowerCase();
  const address = subject.address(ip);
  const attempt = await withTransaction(rt.pool, async (tx) => {
    const byAddress = await claimFailure(tx, address, PER_ADDRESS);
    if ('retryAfter' in byAddress) return byAddress;
    const byEmail = await claimFailure(tx, subject.email(email), PER_EMAIL);
    // Thrown, so the address's row rolls back with it: a 429 is no failure of the address.
    if ('retryAfter' in byEmail) throw new RateLimited(`Too many failed logins for this e-mail; retry in ${byEmail.retryAfter} seconds`, byEmail.retryAfter);
    return { address: byAddress.attemptId, email: byEmail.attemptId };
  });
  if ('retryAfter' in attempt) throw new RateLimited(`Too many failed logins from this address; retry in ${attempt.retryAfter} seconds`, attempt.retryAfter);
  const user = await selectUserByEmail(rt.pool, email);
  if (!(await verifyPassword(input.password, user?.password_hash ?? null)) || !user) throw wrongCredentials();
  if (user.totp_enabled) {
    if (!input.totp) {
      // The right password without a code is the first half of a TOTP login, not a failure.
      await forgetFailures(rt.pool, [attempt.address, attempt.email]);
      throw new AppError('UNAUTHORIZED', 'totp: required');
    }
    if (!(await acceptTotpCode(rt, user, input.totp))) {
      await forgetFailures(rt.pool, [attempt.address]);
      throw new AppError('UNAUTHORIZED', 'totp: invalid');
    }
  }
  await forgetFailures(rt.pool, [attempt.address], subject.email(email));
  const merchant = await selectMerchant(rt.pool, user.merchant_id);
  if (!merchant) throw wrongCredentials();
  if (merchant.suspended) throw new AppError('FORBIDDEN', 'Merchant is suspended');
  const sessionId = newId('ses');
  // Whole seconds: the JWT's exp has no milliseconds, and the answer's expiresAt is the same instant.
  const expiresAt = new Date(Math.floor((Date.now() + SESSION_TTL_MS) / 1000) * 1000);
  const signed = await withTransaction(rt.pool, async (tx) => {
    await insertSession(tx, { id: sessionId, userId: user.id, expiresAt });
    return touchLastLogin(tx, user.id);
  });
  const token = await signSessionToken(rt.config.encryptionKey, { userId: user.id, merchantId: merchant.id, role: signed.role, sessionId }, expiresAt);
  return {
    sessionId,
    answer: { token, expiresAt: expiresAt.toISOString(), user: toUser(signed), merchant: { id: merchant.id, name: storeName(merchant) } },
  };
}

export const logout = (rt: Runtime, sessionId: string): Promise<void> => endSession(rt.pool, sessionId);
