import { TOTP, Secret } from 'otpauth';
import type { Reply, TestContext } from '../support/context.js';

/** The invitation token at the end of an invitation URL. */
export const tokenOf = (url: string): string => url.split('/').pop()!;

export function expectError(res: Reply, status: number, code: string, message?: string | RegExp): void {
  const ok = res.status === status && res.body?.error === code && res.body?.success === false
    && (message === undefined || (typeof message === 'string' ? res.body.message === message : message.test(res.body.message)));
  if (!ok) throw new Error(`expected ${status} ${code}${message ? ` "${message}"` : ''}, got ${res.status} ${res.raw}`);
}

/** The TOTP code of `secret` at `at` (ms), as an authenticator app shows it. */
export const totpCode = (secret: string, at = Date.now()): string =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

/** Invites `email` to the merchant as the OWNER `token` and returns the invitation token. */
export async function invite(t: TestContext, ownerToken: string, body: { email: string; name: string; role: string }): Promise<string> {
  const res = await t.request('POST', '/me/users', { key: ownerToken, body });
  if (res.status !== 201) throw new Error(`invite failed: ${res.raw}`);
  return tokenOf(res.body.data.invitation.url);
}

export const login = (t: TestContext, body: Record<string, unknown>) => t.request('POST', '/auth/login', { body });
