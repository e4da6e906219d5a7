/** Every event an endpoint may subscribe to (docs/contract/webhooks.md#event-names). */
export const EVENT_TYPES = [
  'CHARGE_CREATED', 'CHARGE_PAID', 'CHARGE_EXPIRED', 'REFUND_COMPLETED', 'REFUND_FAILED',
  'WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED', 'CHECKOUT_PAID', 'CHECKOUT_REFUNDED', 'SPLIT_RECEIVED',
  'SUBSCRIPTION_AUTHORIZED', 'SUBSCRIPTION_REJECTED', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_EXPIRED', 'SUBSCRIPTION_CHARGE_FAILED',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Every type /events lists: the subscribable ones and the test ping of POST /webhooks/{id}/test (never subscribable). */
export const LISTED_EVENT_TYPES = [...EVENT_TYPES, 'WEBHOOK_TEST'] as const;
export type AnyEventType = (typeof LISTED_EVENT_TYPES)[number];
