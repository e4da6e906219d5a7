import { qrPngDataUrl } from '../pix/index.js';
import { withTransaction, type TransactionHook } from '../platform/db.js';
import { AppError, notFound, validationError } from '../platform/errors.js';
import type { Runtime } from '../runtime.js';
import { acceptTotpCode } from './login.service.js';
import { checkPasswordRules, hashPassword, verifyPassword } from '../auth/password.crypto.js';
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

/** Ends every other session of the user (docs/contract/access.md#passwords); the one asking stays logged in. */
export async function changePassword(
  rt: Runtime, s: SessionUser, input: { currentPassword: string; newPassword: string }, hook?: TransactionHook<User>,
): Promise<User> {
  const user = await currentUser(rt, s.userId);
  if (!(await verifyPassword(input.currentPassword, user.password_hash))) throw validationError('currentPassword', 'invalid');
  checkPasswordRules('newPassword', input.newPassword, user.email);
  const hash = await hashPassword(input.newPassword);
  return withTransaction(rt.pool, async (tx) => {
    const updated = await setPassword(tx, user.id, hash);
    await endUserSessions(tx, user.id, s.sessionId);
    return toUser(updated);
  }, hook);
}

/** A new pending secret (replacing an unconfirmed one); TOTP turns on only once a code from it is confirmed. */
export async function enrolTotp(rt: Runtime, s: SessionUser, hook?: TransactionHook<TotpEnrolment>): Promise<TotpEnrolment> {
  const user = await currentUser(rt, s.userId);
  const { secret, otpauthUrl } = newTotpSecret(user.email);
  const sealed = sealTotpSecret(rt.config.encryptionKey, secret);
  return withTransaction(rt.pool, async (tx) => {
    if (!(await setPendingTotp(tx, user.id, sealed))) throw new AppError('INVALID_STATE', 'TOTP is already enabled; disable it first');
    return { secret, otpauthUrl, qrImageBase64: qrPngDataUrl(otpauthUrl) };
  }, hook);
}

export async function confirmTotp(rt: Runtime, s: SessionUser, code: string, hook?: TransactionHook<User>): Promise<User> {
  const user = await currentUser(rt, s.userId);
  if (user.totp_enabled) throw new AppError('INVALID_STATE', 'TOTP is already enabled');
  if (!user.totp_secret) throw new AppError('INVALID_STATE', 'No TOTP enrolment pending; POST /me/totp first');
  if (!(await acceptTotpCode(rt, user, code))) throw validationError('code', 'invalid');
  return withTransaction(rt.pool, async (tx) => toUser(await setTotpEnabled(tx, user.id, true)), hook);
}

export async function disableTotp(rt: Runtime, s: SessionUser, code: string): Promise<User> {
  const user = await currentUser(rt, s.userId);
  if (!user.totp_enabled) throw new AppError('INVALID_STATE', 'TOTP is not enabled');
  if (!(await acceptTotpCode(rt, user, code))) throw validationError('code', 'invalid');
  return toUser(await setTotpEnabled(rt.pool, user.id, false));
}
