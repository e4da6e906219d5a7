-- Trusting the PSP and reconciling (decisions part 19): PIX that match no charge, and the progress of the
-- reconciliation sweep. Keep compatible with PostgreSQL 15 (the CI server) and 18 (the embedded one).

-- A received PIX that no charge could take (no txid, unknown txid, another amount, a second PIX to a
-- charge already paid). One row per end-to-end id: the same PIX arriving twice, by notification and by
-- the sweep, or concurrently, is recorded once. `devolucao_id` is the devolução of the current (or last)
-- refund attempt: a new one per attempt, since a PSP refuses an id it has seen.
CREATE TABLE unmatched_payments (
  id                  text PRIMARY KEY,
  end2end_id          text NOT NULL UNIQUE,
  txid                text,
  amount              bigint NOT NULL CHECK (amount > 0),
  payer_name          text,
  payer_tax_id        text,
  received_at         timestamptz NOT NULL,
  status              text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'REFUNDING', 'REFUNDED')),
  failed_reason       text,
  devolucao_id        text UNIQUE,
  refund_requested_at timestamptz,
  refunded_at         timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now_ms(),
  CHECK (status = 'OPEN' OR devolucao_id IS NOT NULL),
  CHECK ((status = 'REFUNDED') = (refunded_at IS NOT NULL))
);
CREATE INDEX unmatched_payments_list ON unmatched_payments (created_at DESC, (id COLLATE "C") DESC);
CREATE INDEX unmatched_payments_status ON unmatched_payments (status, created_at DESC, (id COLLATE "C") DESC);

-- The sweep's progress: the end of the last window it listed completely, per provider.
CREATE TABLE psp_reconcile_progress (
  provider      text PRIMARY KEY,
  covered_until timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- The money of unmatched payments: held at the PSP for the payer, owed to no merchant. A payment moves
-- it from psp_clearing to here; a refund sends it on through payouts_in_transit as a charge refund does.
-- The kind checks are found by what they say, not by a generated name.
DO $$
DECLARE c record;
BEGIN
  FOR c IN SELECT conname FROM pg_constraint
           WHERE conrelid = 'ledger_accounts'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%PAYOUTS_IN_TRANSIT%'
  LOOP
    EXECUTE format('ALTER TABLE ledger_accounts DROP CONSTRAINT %I', c.conname);
  END LOOP;
END $$;
ALTER TABLE ledger_accounts
  ADD CONSTRAINT ledger_accounts_kind_check
    CHECK (kind IN ('AVAILABLE', 'PENDING', 'BLOCKED', 'FEE_REVENUE', 'PSP_CLEARING', 'PAYOUTS_IN_TRANSIT', 'UNMATCHED_FUNDS')),
  ADD CONSTRAINT ledger_accounts_platform_check
    CHECK ((merchant_id IS NULL) = (kind IN ('FEE_REVENUE', 'PSP_CLEARING', 'PAYOUTS_IN_TRANSIT', 'UNMATCHED_FUNDS')));
INSERT INTO ledger_accounts (id, kind) VALUES ('platform:unmatched_funds', 'UNMATCHED_FUNDS');
