-- What is known about the sends of a refund's devolução and of an unmatched payment's devolução, as 0008
-- records it for a withdrawal's payout (docs/contract/psp.md#payout-jobs): the same three columns, so one
-- rule reads all three kinds (src/providers/port/payout-send.service.ts).
-- Keep compatible with PostgreSQL 15 (the CI server) and 18 (the embedded one).

-- payout_sends: sends begun (recorded before each call). payout_sent_at: the start of the latest send that
-- may have reached the PSP (an uncertain one). payout_seen: the PSP once reported the devolução as existing,
-- after which a "not found" is never taken as proof that it was not made.
ALTER TABLE refunds
  ADD COLUMN payout_sends   integer NOT NULL DEFAULT 0,
  ADD COLUMN payout_sent_at timestamptz,
  ADD COLUMN payout_seen    boolean NOT NULL DEFAULT false;

-- Per refund attempt: a new devolução id resets them (unmatched.sql.ts markRefunding).
ALTER TABLE unmatched_payments
  ADD COLUMN payout_sends   integer NOT NULL DEFAULT 0,
  ADD COLUMN payout_sent_at timestamptz,
  ADD COLUMN payout_seen    boolean NOT NULL DEFAULT false;

-- A devolução already waiting may have been sent by the code before this rule: an uncertain send as of now,
-- so only the PSP's word ends it.
UPDATE refunds SET payout_sends = 1, payout_sent_at = now() WHERE status = 'PENDING';
UPDATE unmatched_payments SET payout_sends = 1, payout_sent_at = now() WHERE status = 'REFUNDING';
