import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../platform/errors.js';

/** Dashboard roles (docs/contract/access.md#roles). */
export const ROLES = ['OWNER', 'DEVELOPER', 'FINANCE', 'VIEWER'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What a merchant route needs beyond being the merchant (docs/contract/access.md#roles):
 * - `read`: everything of the merchant (every role, every API key);
 * - `operate`: create charges and customers, delete customers, simulate a payment;
 * - `money`: refunds and withdrawals;
 * - `developer`: webhook endpoints and their operations (docs/contract/webhooks.md#webhook-operations); API keys also need a session;
 * - `team`: invite, change role, remove (needs a session).
 */
export type Permission = 'read' | 'operate' | 'money' | 'developer' | 'team';

const ALLOWED: Record<Permission, readonly Role[]> = {
  read: ROLES,
  operate: ['OWNER', 'DEVELOPER', 'FINANCE'],
  money: ['OWNER', 'FINANCE'],
  developer: ['OWNER', 'DEVELOPER'],
  team: ['OWNER'],
};

export const roleMay = (role: Role, permission: Permission): boolean => ALLOWED[permission].includes(role);

/**
 * API key roles (docs/contract/access.md#key-roles), widest first. FULL is what every key could do before
 * keys had roles: the OWNER's row, while API keys and the team stay closed to every key (requireSession).
 */
export const KEY_ROLES = ['FULL', 'FINANCE', 'DEVELOPER', 'VIEWER'] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

/** The row of the roles table a key of this role acts with. */
const keyRights = (role: KeyRole): Role => (role === 'FULL' ? 'OWNER' : role);

/** A user mints only keys whose rights are within their own (docs/contract/access.md#key-roles). */
export const mayMintKey = (userRole: Role, keyRole: KeyRole): boolean =>
  (Object.keys(ALLOWED) as Permission[]).every((p) => !roleMay(keyRights(keyRole), p) || roleMay(userRole, p));

/** The key role a user gets when asking for none: the widest they may mint (OWNER: FULL, DEVELOPER: DEVELOPER). */
export const defaultKeyRole = (userRole: Role): KeyRole | undefined => KEY_ROLES.find((k) => mayMintKey(userRole, k));

/**
 * The caller of a merchant route. An API key acts with the rights of its key role (never API keys or
 * the team); a dashboard session acts with its user's role.
 */
export type Caller =
  | { kind: 'apiKey'; keyId: string; role: KeyRole }
  | { kind: 'session'; userId: string; sessionId: string; role: Role; viaCookie: boolean };

/** Refuses a caller whose role, or key role, may not do `permission` (403 FORBIDDEN naming it). */
export function assertPermitted(caller: Caller, permission: Permission): void {
  if (caller.kind === 'apiKey') {
    if (!roleMay(keyRights(caller.role), permission)) throw new AppError('FORBIDDEN', `API key role ${caller.role} may not do this`);
    return;
  }
  if (!roleMay(caller.role, permission)) throw new AppError('FORBIDDEN', `Role ${caller.role} may not do this`);
}

/**
 * For routes only a dashboard user may call (API keys, team): an API key gets 403, whatever its role — the
 * message still names that role, as every key refusal does (docs/contract/access.md#key-roles).
 */
export function assertSession(caller: Caller): asserts caller is Extract<Caller, { kind: 'session' }> {
  if (caller.kind !== 'session') {
    throw new AppError('FORBIDDEN', `API keys cannot manage API keys or the team (this key's role: ${caller.role}); log in to the dashboard`);
  }
}

/**
 * Route option `onRequest: requirePermission('money')`: runs right after the scope's auth hook, before
 * body validation and the idempotency lookup, so a refused role is 403 whatever it sent. A callback hook
 * (a refusal is thrown, which Fastify answers as a rejection): it checks in memory, so it needs no promise.
 */
export const requirePermission = (permission: Permission) => (req: FastifyRequest, _reply: FastifyReply, done: () => void) => {
  assertPermitted(req.auth!.caller, permission);
  done();
};

/** Route option for API keys and team routes: a dashboard session (an API key: 403), then its role. */
export const requireSession = (permission: Permission = 'read') => (req: FastifyRequest, _reply: FastifyReply, done: () => void) => {
  const caller = req.auth!.caller;
  assertSession(caller);
  assertPermitted(caller, permission);
  done();
};

/** What the OpenAPI document says of session-only routes (API keys, the team, the account): an API key gets 403, reads included (docs/contract/access.md#api-keys). */
export const sessionSecurity: Array<Record<string, string[]>> = [{ session: [] }, { sessionCookie: [] }];
