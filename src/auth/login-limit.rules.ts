import { addressKey } from '../platform/http/auth-failure-limit.js';

/**
 * The limits of docs/contract/access.md#login-limits: at most `max` failures of one subject within `window` (a
 * PostgreSQL interval). Failures are rows of auth_failures (login-limit.sql.ts), so every process agrees.
 */
export interface LoginLimit {
  readonly window: string;
  readonly max: number;
}

/** Logins for one e-mail. */
export const PER_EMAIL: LoginLimit = { window: '15 minutes', max: 5 };
/** Logins from one client address across e-mails: what stops password spraying (each guess costs a hash). */
export const PER_ADDRESS: LoginLimit = { window: '1 minute', max: 20 };
/** Wrong TOTP codes and current passwords of one logged-in user. */
export const PER_USER: LoginLimit = { window: '15 minutes', max: 5 };

/** What a row counts against; each kind has its prefix, so no value of one kind can name another's subject. */
export const subject = {
  email: (email: string) => `email:${email}`,
  /** IPv6 by its /64, as the unknown-credential limit counts (one host holds a whole /64). */
  address: (ip: string) => `address:${addressKey(ip)}`,
  user: (userId: string) => `user:${userId}`,
};
