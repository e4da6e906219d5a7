import type { Tx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { callbackUrlKey } from '../events/event-fanout.sql.js';
import { upsertCallbackEndpointRow } from './webhook.sql.js';

/**
 * Creates or updates the merchant's webhook endpoint for a withdrawal's clientCallbackUrl (already
 * normalised), subscribed to WITHDRAWAL_COMPLETED and WITHDRAWAL_FAILED, in the caller's transaction.
 * A new endpoint's secret is drawn at its first delivery: nobody is ever shown it (docs/contract/withdrawals.md#client-callback-url —
 * to know the secret, register the URL through POST /webhooks first), and drawing it there keeps the
 * operator's encryption key out of this signature.
 */
export async function upsertCallbackEndpoint(tx: Tx, merchantId: string, url: string): Promise<void> {
  await upsertCallbackEndpointRow(tx, { id: newId('whk'), merchantId, url: callbackUrlKey(url) });
}
