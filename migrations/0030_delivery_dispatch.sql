-- Webhook deliveries leave the job queue (docs/webhooks.md, "Dispatch"). Every attempt now waits on its
-- (event, endpoint) pair, as the slow lane's already did (migration 0012): due_at and due_attempt say which
-- attempt may run when, and while one runs due_at is its lease. A worker's dispatcher claims due pairs in
-- batches (FOR UPDATE SKIP LOCKED, oldest first) through the index below; `slow_lane` pairs wait instead for
-- their endpoint's drain job. A job per delivery cost add_job's NOTIFY inside the payment's transaction,
-- three job pick-ups per attempt and a job row to write and delete.
ALTER TABLE event_endpoints ADD COLUMN slow_lane boolean NOT NULL DEFAULT false;
-- Until now only the slow lane waited on pairs.
UPDATE event_endpoints SET slow_lane = true WHERE due_at IS NOT NULL;

DROP INDEX event_endpoints_due;
-- A drain takes its endpoint's due attempts, oldest first.
CREATE INDEX event_endpoints_drain ON event_endpoints (endpoint_id, due_at) WHERE due_at IS NOT NULL AND slow_lane;
-- The dispatchers take every other due attempt, oldest first.
CREATE INDEX event_endpoints_dispatch ON event_endpoints (due_at) WHERE due_at IS NOT NULL AND NOT slow_lane;

-- The payload is stored once, as the exact bytes sent (`body`); the jsonb copy is no longer written (nothing
-- read it). Kept, nullable, for the rows that have it and for processes of the previous release.
ALTER TABLE events ALTER COLUMN data DROP NOT NULL;
