import { storeName } from '../merchants/merchant.service.js';
import { selectMerchant } from '../merchants/merchant.sql.js';
import { withTransaction } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import type { Runtime } from '../runtime.js';
import { verifyPassword } from '../auth/password.crypto.js';
import { signSessionToken, SESSION_TTL_MS } from '../auth/session-token.crypto.js';
import { claimLoginAttempt, clearLoginFailures, endSession, forgetLoginAttempt, insertSession } from '../auth/session.sql.js';
import { openTotpSecret, totpStep } from '../auth/totp.crypto.js';
import { selectUserByEmail, touchLastLogin, useTotpStep, type UserRow } from './user.sql.js';
import { toUser } from './user.service.js';
import type { LoginAnswer } from './user.schemas.js';

/** 429 RATE_LIMITED with the seconds until the window lets one more attempt through (the route sets Retry-After). */
export class LoginThrottled extends AppError {
  constructor(readonly retryAfter: number) {
    super('RATE_LIMITED', `Too many failed logins for this e-mail; retry in ${retryAfter} seconds`);
  }
}

const wrongCredentials = () => new AppError('UNAUTHORIZED', 'Invalid email or password');

/** Whether `code` is the user's current TOTP code, used for the first time (a replay is refused). */
export async function acceptTotpCode(rt: Runtime, user: UserRow, code: string): Promise<boolean> {
  if (!user.totp_secret) return false;
  const step = totpStep(openTotpSecret(rt.config.encryptionKey, user.totp_secret), code);
  return step !== null && useTotpStep(rt.pool, user.id, step);
}

/**
 * docs/contract/access.md#login-limits. Every attempt is recorded as a failure before the password is checked (a
 * success clears the e-mail's failures), so five failures in 15 minutes hold even under parallel
 * guesses. An unknown e-mail costs one password hash like a known one, and gets the same message.
 */
export async function login(rt: Runtime, input: { email: string; password: string; totp?: string }): Promise<{ answer: LoginAnswer; sessionId: string }> {
  const email = input.email.trim().toLowerCase();
  const claim = await withTransaction(rt.pool, (tx) => claimLoginAttempt(tx, email));
  if ('retryAfter' in claim) throw new LoginThrottled(claim.retryAfter);
  const user = await selectUserByEmail(rt.pool, email);
  if (!(await verifyPassword(input.password, user?.password_hash ?? null)) || !user) throw wrongCredentials();
  if (user.totp_enabled) {
    if (!input.totp) {
      // The right password without a code is the first half of a TOTP login, not a failure.
      await forgetLoginAttempt(rt.pool, claim.attemptId);
      throw new AppError('UNAUTHORIZED', 'totp: required');
    }
    if (!(await acceptTotpCode(rt, user, input.totp))) throw new AppError('UNAUTHORIZED', 'totp: invalid');
  }
  await clearLoginFailures(rt.pool, email);
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
