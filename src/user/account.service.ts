import { qrPngDataUrl } from '../pix/index.js';
import { withTransaction, type TransactionHook } from '../platform/db.js';
import { AppError, notFound, RateLimited } from '../platform/errors.js';
import type { Runtime } from '../runtime.js';
import { acceptTotpCode } from './login.service.js';
import { checkPasswordRules, hashPassword, verifyPassword } from '../auth/password.crypto.js';
import { PER_USER, subject } from '../auth/login-limit.rules.js';
import { claimFailure, forgetFailures, retryAfterOf } from '../auth/login-limit.sql.js';
import { endUserSessions } from '../auth/session.sql.js';
import { newTotpSecret, sealTotpSecret } from '../auth/totp.crypto.js';
import { selectUserById, setPassword, setPendingTotp, setTotpEnabled, type UserRow } from './user.sql.js';
import { toUser } from './user.service.js';
import type { TotpEnrolment, User } from './user.schemas.js';

export interface SessionUser {
  userId: string;
  sessionId: string;
}

async function currentUser(rt: Runtime, userId: string): Promise<UserRow> {
  const user = await selectUserById(rt.pool, userId);
  if (!user) throw notFound('User');
  return user;
}

/** A wrong TOTP code or current password: the one outcome that counts against the user's answer limit. */
class WrongAnswer extends AppError {
  constructor(field: 'code' | 'currentPassword') {
    super('VALIDATION_ERROR', `${field}: invalid`);
  }
}

const tooManyWrong = (retryAfter: number) => new RateLimited(`Too many wrong answers; retry in ${retryAfter} seconds`, retryAfter);

/**
 * Runs `work`, which checks a TOTP code or the current password, under the user's answer limit
 * (docs/contract/access.md#login-limits): over it, 429 before anything is checked. The attempt is recorded in advance
 * (parallel guesses cannot all pass the count) and forgotten unless `work` ends in a WrongAnswer.
 */
async function limitWrongAnswers<T>(rt: Runtime, userId: string, work: () => Promise<T>): Promise<T> {
  const claim = await withTransaction(rt.pool, (tx) => claimFailure(tx, subject.user(userId), PER_USER));
  if ('retryAfter' in claim) throw tooManyWrong(claim.retryAfter);
  try {
    const result = await work();
    await forgetFailures(rt.pool, [claim.attemptId]);
    return result;
  } catch (err) {
    if (!(err instanceof WrongAnswer)) await forgetFailures(rt.pool, [claim.attemptId]);
    throw err;
  }
}

/** Enrolment checks no answer, but is refused like the others while the user is over the limit. */
async function assertUnderAnswerLimit(rt: Runtime, userId: string): Promise<void> {
  const retryAfter = await retryAfterOf(rt.pool, subject.user(userId), PER_USER);
  if (retryAfter !== null) throw tooManyWrong(retryAfter);
}

/** Ends every other session of the user (docs/contract/access.md#passwords); the one asking stays logged in. */
export function changePassword(
  rt: Runtime, s: SessionUser, input: { currentPassword: string; newPassword: string }, hook?: TransactionHook<User>,
): Promise<User> {
  return limitWrongAnswers(rt, s.userId, async () => {
    const user = await currentUser(rt, s.userId);
    if (!(await verifyPassword(input.currentPassword, user.password_hash))) throw new WrongAnswer('currentPassword');
    checkPasswordRules('newPassword', input.newPassword, user.email);
    const hash = await hashPassword(input.newPassword);
    return withTransaction(rt.pool, async (tx) => {
      const updated = await setPassword(tx, user.id, hash);
      await endUserSessions(tx, user.id, s.sessionId);
      return toUser(updated);
    }, hook);
  });
}

/** A new pending secret (replacing an unconfirmed one); TOTP turns on only once a code from it is confirmed. */
export async function enrolTotp(rt: Runtime, s: SessionUser, hook?: TransactionHook<TotpEnrolment>): Promise<TotpEnrolment> {
  await assertUnderAnswerLimit(rt, s.userId);
  const user = await currentUser(rt, s.userId);
  const { secret, otpauthUrl } = newTotpSecret(user.email);
  const sealed = sealTotpSecret(rt.config.encryptionKey, secret);
  return withTransaction(rt.pool, async (tx) => {
    if (!(await setPendingTotp(tx, user.id, sealed))) throw new AppError('INVALID_STATE', 'TOTP is already enabled; disable it first');
    return { secret, otpauthUrl, qrImageBase64: qrPngDataUrl(otpauthUrl) };
  }, hook);
}

export function confirmTotp(rt: Runtime, s: SessionUser, code: string, hook?: TransactionHook<User>): Promise<User> {
  return limitWrongAnswers(rt, s.userId, async () => {
    const user = await currentUser(rt, s.userId);
    if (user.totp_enabled) throw new AppError('INVALID_STATE', 'TOTP is already enabled');
    if (!user.totp_secret) throw new AppError('INVALID_STATE', 'No TOTP enrolment pending; POST /me/totp first');
    if (!(await acceptTotpCode(rt, user, code))) throw new WrongAnswer('code');
    return withTransaction(rt.pool, async (tx) => toUser(await setTotpEnabled(tx, user.id, true)), hook);
  });
}

export function disableTotp(rt: Runtime, s: SessionUser, code: string): Promise<User> {
  return limitWrongAnswers(rt, s.userId, async () => {
    const user = await currentUser(rt, s.userId);
    if (!user.totp_enabled) throw new AppError('INVALID_STATE', 'TOTP is not enabled');
    if (!(await acceptTotpCode(rt, user, code))) throw new WrongAnswer('code');
    return toUser(await setTotpEnabled(rt.pool, user.id, false));
  });
}
