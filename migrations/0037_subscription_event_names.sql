-- The SUBSCRIPTION_* events (docs/contract/subscriptions.md#subscription-events) join the names an endpoint
-- may subscribe to (src/events/event.schemas.ts, EVENT_TYPES; test/events/event-list.test.ts).
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_event_names;
ALTER TABLE webhook_endpoints
  ADD CONSTRAINT webhook_endpoints_event_names CHECK (events <@ ARRAY['CHARGE_CREATED', 'CHARGE_PAID', 'CHARGE_EXPIRED',
    'REFUND_COMPLETED', 'REFUND_FAILED', 'WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED', 'CHECKOUT_PAID', 'CHECKOUT_REFUNDED',
    'SPLIT_RECEIVED', 'SUBSCRIPTION_AUTHORIZED', 'SUBSCRIPTION_REJECTED', 'SUBSCRIPTION_CANCELLED', 'SUBSCRIPTION_EXPIRED',
    'SUBSCRIPTION_CHARGE_FAILED']::text[]);
