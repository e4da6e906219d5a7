-- The event counts (pending/succeeded/failed, migration 0010) move in the statements that change a pair's state —
-- a recorded attempt, a new series (countsMoved, src/events/event-fanout.sql.ts) — instead of by a statement
-- trigger on every UPDATE of event_endpoints. That trigger cannot be limited to the state column while it uses
-- transition tables, so every claim of an attempt (which changes no state) built both of them and ran its
-- aggregate: ≈ 0.1 ms of database CPU per claim, and ≈ 0.03 ms more per recorded attempt than the same UPDATE
-- of the counts made in the record itself (pgbench, docs/performance.md, fourth round). Deletions (an endpoint
-- deleted, retention) still move them by trigger.
DROP TRIGGER event_endpoints_count_update ON event_endpoints;

CREATE OR REPLACE FUNCTION event_endpoints_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE events e SET pending = e.pending - d.p, succeeded = e.succeeded - d.s, failed = e.failed - d.f
  FROM (SELECT event_id, sum((state = 'PENDING')::int) AS p, sum((state = 'SUCCEEDED')::int) AS s, sum((state = 'FAILED')::int) AS f
        FROM old_rows GROUP BY event_id) d
  WHERE e.id = d.event_id;
  RETURN NULL;
END $$;
