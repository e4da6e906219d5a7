import type { Tx } from '../platform/db.js';
import { newId } from '../platform/ids.js';

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
 */
export async function emitEvent(tx: Tx, event: NewEvent): Promise<string> {
  const id = newId('evt');
  await tx.query('INSERT INTO events (id, merchant_id, type, data, callback_url) VALUES ($1, $2, $3, $4, $5)', [
    id, event.merchantId, event.type, JSON.stringify(event.data), event.callbackUrl ?? null,
  ]);
  return id;
}
