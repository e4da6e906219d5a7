import type { Tx } from '../platform/db.js';

/**
 * Creates or updates the merchant's webhook endpoint for a withdrawal's clientCallbackUrl (already
 * normalised), subscribed to WITHDRAWAL_COMPLETED and WITHDRAWAL_FAILED, in the caller's transaction.
 */
export async function upsertCallbackEndpoint(_tx: Tx, _merchantId: string, _url: string): Promise<void> {
  // Implemented with the webhook endpoints (webhooks slice).
}
