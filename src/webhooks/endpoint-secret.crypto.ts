import { randomBase62 } from '../platform/ids.js';
import { decryptSecret, deriveKey, encryptSecret } from '../platform/secrets.js';

// A key of its own for webhook secrets: the operator's ENCRYPTION_KEY never encrypts two kinds of data.
const PURPOSE = 'webhook-secret';

/** `whsec_` + 32 base62 characters (~190 bits from node:crypto); shown once, at creation. */
export const newWebhookSecret = (): string => `whsec_${randomBase62(32)}`;

export const sealWebhookSecret = (master: Buffer, secret: string): string => encryptSecret(deriveKey(master, PURPOSE), secret);

export const openWebhookSecret = (master: Buffer, stored: string): string => decryptSecret(deriveKey(master, PURPOSE), stored);
