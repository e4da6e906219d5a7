/** The eight subscribable events plus the two flow events endpoints accept (docs/contract/webhooks.md#event-names). */
export const EVENT_TYPES = [
  'CHARGE_CREATED', 'CHARGE_PAID', 'CHARGE_EXPIRED', 'REFUND_COMPLETED', 'REFUND_FAILED',
  'WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED', 'CHECKOUT_PAID', 'CHECKOUT_REFUNDED', 'SPLIT_RECEIVED',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Every type /events lists: the subscribable ones and the test ping of POST /webhooks/{id}/test (never subscribable). */
export const LISTED_EVENT_TYPES = [...EVENT_TYPES, 'WEBHOOK_TEST'] as const;
export type AnyEventType = (typeof LISTED_EVENT_TYPES)[number];
