import { createHash } from 'node:crypto';
import type { Role } from '../auth/permission.rules.js';
import { selectMerchant } from '../merchants/merchant.sql.js';
import { isUniqueViolation, withTransaction, type Executor, type TransactionHook } from '../platform/db.js';
import { AppError, notFound, validationError } from '../platform/errors.js';
import { newId, randomBase62 } from '../platform/ids.js';
import { keysetPage, type Page, type PageRequest } from '../platform/pagination.js';
import type { Runtime } from '../runtime.js';
import { checkPasswordRules, hashPassword } from '../auth/password.crypto.js';
import { endUserSessions } from '../auth/session.sql.js';
import {
  deleteUser, insertInvitation, insertUser, lockOwnerIds, selectInvitedUser, selectUser, setPassword, updateUserRole,
  useInvitation, usersPageQuery, USERS_EMAIL_UNIQUE, type UserRow,
} from './user.sql.js';
import type { Invited, InviteInput, User } from './user.schemas.js';

const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;

export const toUser = (u: UserRow): User => ({
  id: u.id, email: u.email, name: u.name, role: u.role, totpEnabled: u.totp_enabled,
  createdAt: u.created_at.toISOString(), lastLoginAt: u.last_login_at?.toISOString() ?? null,
});

const hashToken = (token: string): Buffer => createHash('sha256').update(token).digest();

/** The dashboard's page for a token; only its SHA-256 is stored. */
export const invitationUrl = (rt: Runtime, token: string): string => `${rt.config.publicUrl}/dashboard/invite/${token}`;

/**
 * A user of the merchant and a single-use invitation link valid 72 h (docs/contract/access.md#invitations): the operator's
 * first user and an OWNER's teammates alike. Pixgate sends no e-mail; the inviter passes the link on.
 */
export async function inviteUser(rt: Runtime, merchantId: string, input: InviteInput, hook?: TransactionHook<Invited>): Promise<Invited> {
  const token = randomBase62(43);
  const expiresAt = new Date(Date.now() + INVITATION_TTL_MS);
  try {
    return await withTransaction(rt.pool, async (tx) => {
      if (!(await selectMerchant(tx, merchantId))) throw notFound('Merchant');
      const user = await insertUser(tx, { id: newId('usr'), merchantId, email: input.email.trim(), name: input.name, role: input.role });
      await insertInvitation(tx, { tokenHash: hashToken(token), userId: user.id, expiresAt });
      return { user: toUser(user), invitation: { url: invitationUrl(rt, token), expiresAt: expiresAt.toISOString() } };
    }, hook);
  } catch (err) {
    if (isUniqueViolation(err, USERS_EMAIL_UNIQUE)) throw new AppError('CONFLICT', 'email: already registered');
    throw err;
  }
}

/** Sets the invitee's password (and name); an unknown, used or expired token is NOT_FOUND. */
export async function acceptInvitation(rt: Runtime, token: string, input: { password: string; name?: string }): Promise<User> {
  const invited = await selectInvitedUser(rt.pool, hashToken(token));
  if (!invited) throw notFound('Invitation');
  checkPasswordRules('password', input.password, invited.email);
  const hash = await hashPassword(input.password);
  return withTransaction(rt.pool, async (tx) => {
    // Used here, in the transaction that sets the password: of two accepts at once, one finds it gone.
    if ((await useInvitation(tx, hashToken(token))) !== invited.id) throw notFound('Invitation');
    return toUser(await setPassword(tx, invited.id, hash, input.name));
  });
}

export async function listUsers(rt: Runtime, merchantId: string, page: PageRequest): Promise<Page<User>> {
  const rows = await keysetPage<UserRow>(rt.pool, rt.cursors, { merchantId, list: 'users' }, usersPageQuery(merchantId), page);
  return { items: rows.items.map(toUser), pagination: rows.pagination };
}

const lastOwner = () => validationError('role', 'the last OWNER cannot be removed or demoted');

/** Locks the merchant's OWNERs and the user: concurrent demotions cannot leave the merchant without one. */
async function lockForChange(tx: Executor, merchantId: string, id: string): Promise<{ user: UserRow; owners: string[] }> {
  const owners = await lockOwnerIds(tx, merchantId);
  const user = await selectUser(tx, merchantId, id, true);
  if (!user) throw notFound('User');
  return { user, owners };
}

/** A role change ends the user's sessions: their next request logs in again under the new role. */
export async function changeRole(rt: Runtime, merchantId: string, id: string, role: Role): Promise<User> {
  return withTransaction(rt.pool, async (tx) => {
    const { user, owners } = await lockForChange(tx, merchantId, id);
    if (user.role === role) return toUser(user);
    if (user.role === 'OWNER' && owners.length <= 1) throw lastOwner();
    const updated = await updateUserRole(tx, id, role);
    await endUserSessions(tx, id);
    return toUser(updated);
  });
}

/** Removal deletes the user with its sessions and invitations: its tokens are refused at once. */
export async function removeUser(rt: Runtime, merchantId: string, id: string): Promise<void> {
  await withTransaction(rt.pool, async (tx) => {
    const { user, owners } = await lockForChange(tx, merchantId, id);
    if (user.role === 'OWNER' && owners.length <= 1) throw lastOwner();
    await deleteUser(tx, id);
  });
}
