-- The event names a webhook endpoint may subscribe to, in a constraint with a name, so that the list can
-- be checked against the server's (src/events/event.schemas.ts, EVENT_TYPES) by test/events/event-list.test.ts.
-- Adding an event: add it to EVENT_TYPES, and in a new migration drop webhook_endpoints_event_names and
-- add it again with the new list (the test fails until both agree).
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_events_check;
ALTER TABLE webhook_endpoints
  -- 1 to 8 from the API; a clientCallbackUrl may add the two withdrawal events to an endpoint, hence 10.
  ADD CONSTRAINT webhook_endpoints_events_count CHECK (cardinality(events) BETWEEN 1 AND 10 AND text_array_is_distinct(events)),
  ADD CONSTRAINT webhook_endpoints_event_names CHECK (events <@ ARRAY['CHARGE_CREATED', 'CHARGE_PAID', 'CHARGE_EXPIRED',
    'REFUND_COMPLETED', 'REFUND_FAILED', 'WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED', 'CHECKOUT_PAID', 'CHECKOUT_REFUNDED',
    'SPLIT_RECEIVED']::text[]);
