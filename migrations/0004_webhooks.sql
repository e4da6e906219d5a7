-- Webhooks: endpoints (one per URL per merchant, secret encrypted at rest) and the delivery history
-- (one row per HTTP attempt). Rules: decisions.md parts 9 and 14.

-- True when a text array holds no name twice; CHECK constraints cannot run subqueries themselves.
CREATE FUNCTION text_array_is_distinct(a text[]) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT count(DISTINCT x) = count(*) FROM unnest(a) AS x
$$;

CREATE TABLE webhook_endpoints (
  id               text PRIMARY KEY,
  merchant_id      text NOT NULL REFERENCES merchants (id),
  -- WHATWG-normalised, so equal URLs compare equal here and in the unique constraint below.
  url              text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
  -- 1 to 8 from the API; a clientCallbackUrl may add the two withdrawal events to an endpoint, hence 10.
  events           text[] NOT NULL CHECK (
    cardinality(events) BETWEEN 1 AND 10
    AND text_array_is_distinct(events)
    AND events <@ ARRAY['CHARGE_CREATED', 'CHARGE_PAID', 'CHARGE_EXPIRED', 'REFUND_COMPLETED', 'REFUND_FAILED',
      'WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED', 'CHECKOUT_PAID', 'CHECKOUT_REFUNDED', 'SPLIT_RECEIVED']::text[]
  ),
  -- AES-256-GCM (`v1.<iv>.<tag>.<data>`), never the secret in clear. NULL only on an endpoint created
  -- by a withdrawal's clientCallbackUrl until its first delivery draws the secret (no one ever sees it).
  secret_encrypted text CHECK (secret_encrypted LIKE 'v1.%'),
  created_at       timestamptz NOT NULL DEFAULT now_ms(),
  CONSTRAINT webhook_endpoints_merchant_url UNIQUE (merchant_id, url)
);
CREATE INDEX webhook_endpoints_page ON webhook_endpoints (merchant_id, created_at DESC, id DESC);

-- The exact bytes every delivery attempt of an event sends (the same body on every attempt, and
-- `data` keeps the key order of the API shape, which jsonb would not).
ALTER TABLE events ADD COLUMN body text;
UPDATE events SET body = json_build_object(
  'id', id, 'event', type, 'createdAt', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', data
)::text WHERE body IS NULL;
ALTER TABLE events ALTER COLUMN body SET NOT NULL;

CREATE TABLE webhook_deliveries (
  id          text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  -- Deleting an endpoint is permanent; its history goes with it (no route can reach it any more).
  endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id    text NOT NULL REFERENCES events (id),
  event_type  text NOT NULL,
  attempt     smallint NOT NULL CHECK (attempt BETWEEN 1 AND 3),
  status_code integer CHECK (status_code BETWEEN 100 AND 999),
  success     boolean NOT NULL,
  error       text,
  duration_ms integer NOT NULL CHECK (duration_ms >= 0),
  created_at  timestamptz NOT NULL DEFAULT now_ms(),
  -- Each attempt is recorded once: a delivery job that runs twice finds its row and sends nothing.
  CONSTRAINT webhook_deliveries_attempt UNIQUE (endpoint_id, event_id, attempt),
  CHECK (NOT success OR (status_code BETWEEN 200 AND 299 AND error IS NULL))
);
CREATE INDEX webhook_deliveries_page ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
