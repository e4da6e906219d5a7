-- Trusting the PSP (decisions part 19), the half that keeps the pool free and money safe:
-- idempotency claims, the provider a database is bound to, and what is known about a payout's send.
-- Keep compatible with PostgreSQL 15 (the CI server) and 18 (the embedded one).

-- A claim: the key is taken (request_hash set, no answer yet) before a PSP call that runs outside any
-- transaction; claim_id names the request holding it, so only that request can store the answer. A claim
-- older than 60 s without an answer belongs to a process that died and may be taken over.
ALTER TABLE idempotency_keys
  ALTER COLUMN status_code DROP NOT NULL,
  ALTER COLUMN body DROP NOT NULL,
  ADD COLUMN claim_id text;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_answer_whole CHECK ((status_code IS NULL) = (body IS NULL));

-- The provider the database first ran with; every command refuses another (src/providers/provider-binding.ts).
CREATE TABLE provider_binding (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  provider  text NOT NULL,
  bound_at  timestamptz NOT NULL DEFAULT now_ms()
);

-- payout_sends: sends begun (recorded before each call). payout_sent_at: the start of the latest send that
-- may have reached the PSP (an uncertain one). payout_seen: the PSP once reported the payout as existing,
-- after which a "not found" is never taken as proof that it was not made.
ALTER TABLE withdrawals
  ADD COLUMN payout_sends   integer NOT NULL DEFAULT 0,
  ADD COLUMN payout_sent_at timestamptz,
  ADD COLUMN payout_seen    boolean NOT NULL DEFAULT false;
-- A payout already PROCESSING may have been sent: treated as an uncertain send from its last change.
UPDATE withdrawals SET payout_sends = 1, payout_sent_at = updated_at WHERE status = 'PROCESSING';
