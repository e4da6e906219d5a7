import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../platform/secrets.js';
import type { Runtime } from '../../runtime.js';

/*
 * A recurrence location's token (docs/contract/subscriptions.md#recurrence-payload): the subscription's own random
 * id (22 base62 characters, unguessable) and 10 hex characters of an HMAC over it, 32 alphanumerics — so the
 * simulator stores nothing to find the subscription again, and a token made up from an id seen elsewhere is refused.
 */
const tag = (rt: Runtime, id: string) => createHmac('sha256', deriveKey(rt.config.encryptionKey, 'sim-location')).update(id).digest('hex').slice(0, 10);

export function locationToken(rt: Runtime, id: string): string {
  const random = id.slice(id.indexOf('_') + 1);
  if (!/^[A-Za-z0-9]{22}$/.test(random)) throw new Error('a location token is made of a Pixgate id');
  return random + tag(rt, id);
}

/** The id of `prefix` behind a token, or null when the token is not one the simulator made. */
export function idOfToken(rt: Runtime, prefix: string, token: string): string | null {
  const m = /^([A-Za-z0-9]{22})([0-9a-f]{10})$/.exec(token);
  if (!m) return null;
  const id = `${prefix}_${m[1]}`;
  return timingSafeEqual(Buffer.from(tag(rt, id)), Buffer.from(m[2]!)) ? id : null;
}
