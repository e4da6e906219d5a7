-- Events and webhook operations (decisions part 16): the per-endpoint delivery state of each event and
-- its counts, delivery series (redeliver), two live secrets (rotation), the slow lane, retention.

-- Counts over the endpoints the event went to, kept as their states change (a trigger below), so the
-- deliveryStatus filter reads one row per event instead of aggregating its delivery records.
ALTER TABLE events
  ADD COLUMN pending   integer NOT NULL DEFAULT 0,
  ADD COLUMN succeeded integer NOT NULL DEFAULT 0,
  ADD COLUMN failed    integer NOT NULL DEFAULT 0;
CREATE INDEX events_page_type ON events (merchant_id, type, created_at DESC, id DESC);
CREATE INDEX events_page_pending ON events (merchant_id, created_at DESC, id DESC) WHERE pending > 0;
CREATE INDEX events_page_failed ON events (merchant_id, created_at DESC, id DESC) WHERE failed > 0;
CREATE INDEX events_page_succeeded ON events (merchant_id, created_at DESC, id DESC) WHERE succeeded > 0 AND pending = 0 AND failed = 0;
-- Retention deletes the oldest first; rows arrive in time order, so a BRIN index costs inserts almost nothing.
CREATE INDEX events_created_brin ON events USING brin (created_at);

-- One row per (event, endpoint) it went to: the current series of attempts (1 = automatic, each
-- redeliver starts the next) and how that series ended.
CREATE TABLE event_endpoints (
  event_id         text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  endpoint_id      text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  merchant_id      text NOT NULL,
  event_created_at timestamptz NOT NULL,
  series           integer NOT NULL DEFAULT 1 CHECK (series >= 1),
  state            text NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'SUCCEEDED', 'FAILED')),
  PRIMARY KEY (event_id, endpoint_id)
);
CREATE INDEX event_endpoints_failed ON event_endpoints (endpoint_id, event_created_at) WHERE state = 'FAILED';
CREATE INDEX event_endpoints_endpoint ON event_endpoints (endpoint_id);

-- Inserts set the event's counts in their own statement (the fan-out); state changes and deletions
-- (an endpoint deleted, retention) move them here, one UPDATE per statement and event.
CREATE FUNCTION event_endpoints_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    UPDATE events e SET pending = e.pending + d.p, succeeded = e.succeeded + d.s, failed = e.failed + d.f
    FROM (SELECT event_id, sum(p) AS p, sum(s) AS s, sum(f) AS f FROM (
            SELECT event_id, (state = 'PENDING')::int AS p, (state = 'SUCCEEDED')::int AS s, (state = 'FAILED')::int AS f FROM new_rows
            UNION ALL
            SELECT event_id, -(state = 'PENDING')::int, -(state = 'SUCCEEDED')::int, -(state = 'FAILED')::int FROM old_rows) x
          GROUP BY event_id) d
    WHERE e.id = d.event_id AND (d.p, d.s, d.f) <> (0, 0, 0);
  ELSE
    UPDATE events e SET pending = e.pending - d.p, succeeded = e.succeeded - d.s, failed = e.failed - d.f
    FROM (SELECT event_id, sum((state = 'PENDING')::int) AS p, sum((state = 'SUCCEEDED')::int) AS s, sum((state = 'FAILED')::int) AS f
          FROM old_rows GROUP BY event_id) d
    WHERE e.id = d.event_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER event_endpoints_count_update AFTER UPDATE ON event_endpoints
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION event_endpoints_count();
CREATE TRIGGER event_endpoints_count_delete AFTER DELETE ON event_endpoints
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION event_endpoints_count();

-- Attempt numbers restart at 1 within each series; `manual` marks a redelivery's (and a test's) records.
ALTER TABLE webhook_deliveries
  ADD COLUMN series integer NOT NULL DEFAULT 1,
  ADD COLUMN manual boolean NOT NULL DEFAULT false,
  DROP CONSTRAINT webhook_deliveries_attempt,
  ADD CONSTRAINT webhook_deliveries_attempt UNIQUE (endpoint_id, event_id, series, attempt),
  DROP CONSTRAINT webhook_deliveries_event_id_fkey,
  ADD CONSTRAINT webhook_deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE;
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

-- Rotation: the previous secret keeps signing (a second v1) until it expires; at most two live.
-- `slow`: the endpoint's last attempt timed out or took long; its deliveries run in the slow lane.
ALTER TABLE webhook_endpoints
  ADD COLUMN secret_previous_encrypted text CHECK (secret_previous_encrypted LIKE 'v1.%'),
  ADD COLUMN secret_previous_expires_at timestamptz,
  ADD COLUMN slow boolean NOT NULL DEFAULT false;

-- Existing history: a pair per (event, endpoint) with a record or a queued job.
DO $$
DECLARE queued text := 'false';
BEGIN
  IF to_regclass('graphile_worker.jobs') IS NOT NULL THEN
    queued := 'EXISTS (SELECT 1 FROM graphile_worker.jobs j WHERE j.key = ''webhook:'' || x.event_id || '':'' || x.endpoint_id)';
  END IF;
  EXECUTE format($sql$
    INSERT INTO event_endpoints (event_id, endpoint_id, merchant_id, event_created_at, state)
    SELECT x.event_id, x.endpoint_id, x.merchant_id, x.created_at,
           CASE WHEN x.ok THEN 'SUCCEEDED' WHEN %s THEN 'PENDING' ELSE 'FAILED' END
    FROM (SELECT d.event_id, d.endpoint_id, d.merchant_id, e.created_at, bool_or(d.success) AS ok
          FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
          GROUP BY d.event_id, d.endpoint_id, d.merchant_id, e.created_at) x$sql$, queued);
  IF to_regclass('graphile_worker.jobs') IS NOT NULL THEN
    -- The public jobs view has no payload (graphile-worker 0.17): a delivery job's key names its pair,
    -- `webhook:<event id>:<endpoint id>` (ids hold no colon).
    INSERT INTO event_endpoints (event_id, endpoint_id, merchant_id, event_created_at)
    SELECT e.id, w.id, e.merchant_id, e.created_at
    FROM graphile_worker.jobs j
    JOIN events e ON e.id = split_part(j.key, ':', 2)
    JOIN webhook_endpoints w ON w.id = split_part(j.key, ':', 3)
    WHERE j.key LIKE 'webhook:%'
    ON CONFLICT DO NOTHING;
  END IF;
END $$;
UPDATE events e SET pending = c.p, succeeded = c.s, failed = c.f
FROM (SELECT event_id, count(*) FILTER (WHERE state = 'PENDING') AS p, count(*) FILTER (WHERE state = 'SUCCEEDED') AS s,
             count(*) FILTER (WHERE state = 'FAILED') AS f
      FROM event_endpoints GROUP BY event_id) c
WHERE e.id = c.event_id;
