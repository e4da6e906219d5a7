-- API keys carry a role; Idempotency-Keys belong to their caller; a claim lives as long as its process
-- (docs/contract/access.md#key-roles, docs/contract/http.md#idempotency-scope, docs/contract/http.md#idempotency-claims).
-- Keep compatible with PostgreSQL 15 (the CI server) and 18 (the embedded one).

-- Keys from before roles could do everything but API keys and the team: they stay FULL. created_by is the
-- maker's user id, null for the operator's keys; no foreign key, because a key outlives its maker's removal
-- and still shows who made it. New rows name their role (no default left).
ALTER TABLE api_keys
  ADD COLUMN role text NOT NULL DEFAULT 'FULL' CONSTRAINT api_keys_role CHECK (role IN ('FULL', 'FINANCE', 'DEVELOPER', 'VIEWER')),
  ADD COLUMN created_by text;
ALTER TABLE api_keys ALTER COLUMN role DROP DEFAULT;

-- The caller a key belongs to: an API key id or a dashboard user id. Rows stored before callers were told
-- apart get '' (no caller): never replayed to anyone, they keep their key spent until they expire (24 h),
-- so a retry across the upgrade cannot run the work twice. New rows name their caller (no default left).
ALTER TABLE idempotency_keys ADD COLUMN caller_id text NOT NULL DEFAULT '';
ALTER TABLE idempotency_keys ALTER COLUMN caller_id DROP DEFAULT;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (merchant_id, caller_id, key);

-- The process holding a claim (a row without an answer). The claim is live while that process beats in
-- http_process_heartbeats; older claims without a process are released at once.
ALTER TABLE idempotency_keys ADD COLUMN claim_process text;

-- Live HTTP processes: each writes its row every second while it runs and deletes it when it closes.
CREATE TABLE http_process_heartbeats (
  process_id text PRIMARY KEY,
  seen_at    timestamptz NOT NULL DEFAULT now()
);
