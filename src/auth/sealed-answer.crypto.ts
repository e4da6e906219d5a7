import type { IdempotencyRouteOptions } from '../platform/http/idempotency.js';
import { decryptSecret, deriveKey, encryptSecret } from '../platform/secrets.js';

const PURPOSE = 'idempotent-answer';

/**
 * For answers that carry a credential shown once (an API key, an invitation link, a TOTP secret): the
 * Idempotency-Key store keeps the answer sealed, never in clear, and a replay opens it again.
 */
export const sealedReplay = (master: Buffer): IdempotencyRouteOptions => ({
  redact: (data) => ({ sealed: encryptSecret(deriveKey(master, PURPOSE), JSON.stringify(data)) }),
  restore: async (_merchantId, data) => JSON.parse(decryptSecret(deriveKey(master, PURPOSE), (data as { sealed: string }).sealed)),
});
