-- The slow lane's backlog waits on its (event, endpoint) pairs, not as jobs (docs/webhooks.md, "Fairness"):
-- thousands of queued deliveries to a merchant's hanging receivers made every idle runner's job pick-up
-- scan past them, which slowed every other merchant's deliveries. One drain job per slow endpoint
-- (`webhooks.drain`) takes its pairs that are due, oldest first.
-- due_at: when the pair's attempt `due_attempt` (of its current series) may run; NULL when none waits here.
-- While an attempt runs, due_at is a lease: a worker that died mid-attempt leaves it due again later.
ALTER TABLE event_endpoints
  ADD COLUMN due_at timestamptz,
  ADD COLUMN due_attempt smallint CHECK (due_attempt >= 1);
CREATE INDEX event_endpoints_due ON event_endpoints (endpoint_id, due_at) WHERE due_at IS NOT NULL;
