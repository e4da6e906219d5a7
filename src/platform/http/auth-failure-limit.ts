import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import { AppError } from '../errors.js';

/**
 * Unknown credentials are limited per client address before any database lookup (docs/contract/http.md#rate-limits),
 * so a flood of made-up keys costs the database at most `perSecond` lookups per address per second,
 * however many requests run at once: the address's budget is taken BEFORE the lookup, atomically.
 *
 * A credential that resolved in this process is remembered (its SHA-256, never the secret) and skips
 * the budget from then on: a valid key is never slowed, nor refused because its address also sends bad
 * ones. It is still looked up on every request, so revocation stays immediate (docs/contract/access.md#credentials); one
 * that stops resolving is forgotten. A new credential's first request from a busy address can be
 * refused: the price of spending no database query on a guess.
 */
export interface AuthFailureLimiter {
  /** False when RATE_LIMIT_PER_SECOND is 0: nothing is counted or hashed. */
  readonly enabled: boolean;
  /** Before resolving a credential (its `fingerprint`): takes one unit of the address's budget unless it resolved before. */
  admit(req: FastifyRequest, reply: FastifyReply, fp: string): Promise<void>;
  /** The credential resolved to a caller. */
  resolved(fp: string): void;
  /** The credential did not resolve (unknown, revoked, ended). */
  rejected(fp: string): void;
}

const KNOWN_MAX = 10_000;
export const fingerprint = (token: string) => createHash('sha256').update(token).digest('base64');

/** An IPv6 client is counted by its /64: one host holds a whole /64 and could otherwise rotate freely. */
export function addressKey(ip: string): string {
  if (!isIPv6(ip) || ip.startsWith('::ffff:')) return ip;
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** Fixed one-second windows counted in this process; memory is bounded by the addresses of one second. */
function localCounter(): (key: string) => number {
  let windowEnd = 0;
  const counts = new Map<string, number>();
  return (key) => {
    const now = Date.now();
    if (now >= windowEnd) {
      counts.clear();
      windowEnd = now - (now % 1000) + 1000;
    }
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    return n;
  };
}

export function createAuthFailureLimiter(opts: { perSecond: number; redis: Redis | null; prefix: string }): AuthFailureLimiter {
  const known = new Map<string, true>();
  const local = localCounter();
  // The same one-second windows in every process (clocks agree to well under a second with NTP).
  const shared = async (key: string): Promise<number> => {
    const window = Math.floor(Date.now() / 1000);
    const res = await opts.redis!.multi().incr(`${opts.prefix}rl:auth:${key}:${window}`).pexpire(`${opts.prefix}rl:auth:${key}:${window}`, 2_000).exec();
    const n = res?.[0]?.[1];
    if (typeof n !== 'number') throw new Error('redis: no count');
    return n;
  };
  // Redis away: count here rather than let every guess reach the database.
  const count = (key: string): Promise<number> | number => (opts.redis ? shared(key).catch(() => local(key)) : local(key));

  return {
    enabled: opts.perSecond > 0,
    async admit(req, reply, fp) {
      if (opts.perSecond <= 0 || known.has(fp)) return;
      if ((await count(addressKey(req.ip))) <= opts.perSecond) return;
      reply.header('retry-after', '1');
      throw new AppError('RATE_LIMITED', `Too many requests with unknown credentials from this address; limit ${opts.perSecond} per second`);
    },
    resolved(fp) {
      if (opts.perSecond <= 0 || known.has(fp)) return;
      if (known.size >= KNOWN_MAX) known.delete(known.keys().next().value!);
      known.set(fp, true);
    },
    rejected(fp) {
      known.delete(fp);
    },
  };
}

/**
 * Wraps the scope's auth hook: the budget is checked before the hook looks anything up, and what the
 * hook made of the credential (the Authorization header, else the cookies) is remembered: a refusal as
 * UNAUTHORIZED makes it unknown; FORBIDDEN (a suspended merchant, a role) means it was found.
 */
export function limitUnknownCredentials(limiter: AuthFailureLimiter, auth: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>): onRequestAsyncHookHandler {
  if (!limiter.enabled) return auth; // as it is: a wrapper would add a promise to every request
  return async function (req, reply) {
    const credential = req.headers.authorization ?? req.headers.cookie;
    if (credential === undefined) return void (await auth(req, reply)); // nothing to look up
    const fp = fingerprint(credential);
    await limiter.admit(req, reply, fp);
    try {
      await auth(req, reply);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === 'UNAUTHORIZED') limiter.rejected(fp);
      else if (code === 'FORBIDDEN') limiter.resolved(fp);
      throw err;
    }
    limiter.resolved(fp);
  };
}
