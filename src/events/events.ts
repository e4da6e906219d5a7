import type { Tx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { callbackUrlKey } from '../webhooks/callback-endpoint.js';
import { fanOut } from '../webhooks/webhook-fanout.js';

/** The eight subscribable events (spec 6) plus the two flow events decisions part 9 accepts. */
export const EVENT_TYPES = [
  'CHARGE_CREATED', 'CHARGE_PAID', 'CHARGE_EXPIRED', 'REFUND_COMPLETED', 'REFUND_FAILED',
  'WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED', 'CHECKOUT_PAID', 'CHECKOUT_REFUNDED', 'SPLIT_RECEIVED',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface NewEvent {
  merchantId: string;
  type: EventType;
  /** The payload's `data`, already in its API shape (decisions part 9). */
  data: unknown;
  /** A withdrawal's clientCallbackUrl (normalised): its events go only to that endpoint. */
  callbackUrl?: string | null;
}

/**
 * Records an event in the transaction of the state change that causes it, so an event exists if and
 * only if the change committed; webhook deliveries fan out from it in the same transaction.
 * The delivery body is serialised once, here, so every attempt sends the same bytes and `data`
 * keeps its API key order.
 */
export async function emitEvent(tx: Tx, event: NewEvent): Promise<string> {
  const id = newId('evt');
  const callbackUrl = event.callbackUrl ? callbackUrlKey(event.callbackUrl) : null;
  // The transaction's own clock, as every other row of the state change carries it.
  const { rows } = await tx.query<{ now: Date }>('SELECT now_ms() AS now');
  const createdAt = rows[0]!.now;
  const body = JSON.stringify({ id, event: event.type, createdAt: createdAt.toISOString(), data: event.data });
  await tx.query(
    'INSERT INTO events (id, merchant_id, type, data, callback_url, body, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [id, event.merchantId, event.type, JSON.stringify(event.data), callbackUrl, body, createdAt],
  );
  await fanOut(tx, { id, merchantId: event.merchantId, type: event.type, callbackUrl });
  return id;
}
