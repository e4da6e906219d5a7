import type { Tx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { callbackUrlKey } from '../webhooks/callback-endpoint.js';
import { fanOutFrom } from '../webhooks/webhook-fanout.js';

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
  const data = JSON.stringify(event.data);
  // The body is JSON.stringify({ id, event, createdAt, data }); createdAt is the transaction's own
  // clock (now_ms(), as every other row of the state change carries it), so SQL writes it between the
  // two halves — one round trip instead of reading the clock first.
  // The webhook fan-out runs in the same statement, on the inserted row.
  const head = `${JSON.stringify({ id, event: event.type }).slice(0, -1)},"createdAt":"`;
  await tx.query(
    `WITH event AS (
       INSERT INTO events (id, merchant_id, type, data, callback_url, body)
       VALUES ($1, $2, $3, $4, $5, $6 || to_char(now_ms() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || $7)
       RETURNING id, merchant_id, type, callback_url)
     ${fanOutFrom('event')}`,
    [id, event.merchantId, event.type, data, callbackUrl, head, `","data":${data}}`],
  );
  return id;
}
