// The `Service-Signature` header (docs/contract/webhooks.md#signature): `t=<unix seconds>,v1=<hex>` where <hex> is
// the lower-case HMAC-SHA256 of `<t>.<raw body>`, keyed with the whole `whsec_...` string (UTF-8).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Service-Signature';
export const EVENT_ID_HEADER = 'Service-Event-Id';
export const DEFAULT_TOLERANCE_SECONDS = 300;

function hmacHex(secret: string, unixSeconds: number, payload: string | Buffer): string {
  // Two updates instead of a concatenation: a Buffer payload is signed byte for byte, never re-decoded.
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${unixSeconds}.`, 'utf8')
    .update(typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload)
    .digest('hex');
}

/**
 * Builds the header value for one delivery attempt (each attempt is signed with its own `t`). During a
 * secret rotation pass both, the new one first: `t=<t>,v1=<new>,v1=<old>` (Stripe's form — a receiver
 * holding either secret finds a match).
 */
export function signatureHeader(secret: string | readonly string[], rawBody: string, unixSeconds: number): string {
  if (!Number.isSafeInteger(unixSeconds) || unixSeconds < 0) {
    throw new RangeError('unixSeconds must be a non-negative integer');
  }
  const secrets = typeof secret === 'string' ? [secret] : secret;
  return `t=${unixSeconds}${secrets.map((s) => `,v1=${hmacHex(s, unixSeconds, rawBody)}`).join('')}`;
}

/**
 * Verifies a Pixgate webhook delivery. Pass the body exactly as received — the raw bytes or
 * string, not re-serialised JSON — plus the `Service-Signature` header and the endpoint's secret.
 * Returns false when the signature does not match any `v1=` entry or the timestamp is more than
 * `toleranceSeconds` (default 300) away from `now` in either direction (replay protection).
 *
 * @example
 * ```ts
 * // Self-contained (node:crypto only): copy this function into your receiver if you like.
 * import { verifySignature } from './signature.crypto.js';
 *
 * app.post('/pix-hook', express.raw({ type: 'application/json' }), (req, res) => {
 *   const ok = verifySignature({
 *     payload: req.body, // Buffer
 *     header: req.get('Service-Signature') ?? '',
 *     secret: process.env.PIXGATE_WEBHOOK_SECRET!, // whsec_...
 *   });
 *   if (!ok) return res.sendStatus(400);
 *   const event = JSON.parse(req.body.toString('utf8'));
 *   res.sendStatus(200);
 * });
 * ```
 */
export function verifySignature(opts: {
  payload: string | Buffer;
  header: string;
  secret: string;
  toleranceSeconds?: number;
  now?: number;
}): boolean {
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (typeof opts.header !== 'string' || typeof opts.secret !== 'string') return false;

  let timestamp: number | null = null;
  const candidates: string[] = [];
  for (const part of opts.header.split(',')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== null || !/^\d{1,15}$/.test(value)) return false; // one unambiguous t only
      timestamp = Number(value);
    } else if (key === 'v1') {
      candidates.push(value.toLowerCase());
    } // other schemes (v0, future v2) are ignored, as receivers of versioned headers should
  }
  if (timestamp === null || candidates.length === 0) return false;
  if (!Number.isFinite(now) || Math.abs(now - timestamp) > tolerance) return false;

  const expected = Buffer.from(hmacHex(opts.secret, timestamp, opts.payload), 'hex');
  let matched = false;
  for (const candidate of candidates) {
    if (!/^[0-9a-f]{64}$/.test(candidate)) continue;
    // Compare every candidate (no early exit) so timing does not reveal which one matched.
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
  }
  return matched;
}
