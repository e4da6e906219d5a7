import { randomBase62 } from '../platform/ids.js';
import { decryptSecret, deriveKey, encryptSecret } from '../platform/secrets.js';

// A key of its own for webhook secrets: the operator's ENCRYPTION_KEY never encrypts two kinds of data.
const PURPOSE = 'webhook-secret';

/** `whsec_` + 32 base62 characters (~190 bits from node:crypto); shown once, at creation. */
export const newWebhookSecret = (): string => `whsec_${randomBase62(32)}`;

export const sealWebhookSecret = (master: Buffer, secret: string): string => encryptSecret(deriveKey(master, PURPOSE), secret);

/**
 * Opened secrets by their sealed text, per master key: every attempt signs with its endpoint's secret, and an
 * AES-GCM opening per attempt cost ≈ 6 µs. A rotation seals a new text, so nothing here goes stale; the process
 * holds the key that opens them all anyway. The oldest stored are forgotten first.
 */
const opened = new WeakMap<Buffer, Map<string, string>>();
const MAX_OPENED = 10_000;

export function openWebhookSecret(master: Buffer, stored: string): string {
  let secrets = opened.get(master);
  if (!secrets) opened.set(master, (secrets = new Map()));
  let secret = secrets.get(stored);
  if (secret === undefined) {
    secret = decryptSecret(deriveKey(master, PURPOSE), stored);
    if (secrets.size >= MAX_OPENED) secrets.delete(secrets.keys().next().value!);
    secrets.set(stored, secret);
  }
  return secret;
}
