-- Withdrawals (payouts to a PIX key, spec 2.4 / 3.2 / 4.4, decisions part 8) and the simulator's payouts.
-- Keep compatible with PostgreSQL 15 (the CI server) and 18 (the embedded one).

CREATE TABLE withdrawals (
  id            text PRIMARY KEY,
  merchant_id   text NOT NULL REFERENCES merchants (id),
  amount        bigint NOT NULL CHECK (amount > 0),
  fee           bigint NOT NULL CHECK (fee >= 0),
  status        text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED')),
  pix_key       text NOT NULL,
  pix_key_type  text NOT NULL CHECK (pix_key_type IN ('CPF', 'CNPJ', 'EMAIL', 'TELEFONE', 'CHAVE_ALEATORIA')),
  description   text,
  tax_id        text,
  -- The normalised clientCallbackUrl: this withdrawal's events go only to that endpoint.
  callback_url  text,
  end2end_id    text,
  failed_reason text,
  created_at    timestamptz NOT NULL DEFAULT now_ms(),
  -- Time of the last state change: the recovery sweep looks for open withdrawals that stopped moving.
  updated_at    timestamptz NOT NULL DEFAULT now_ms(),
  completed_at  timestamptz,
  CHECK ((status = 'COMPLETED') = (completed_at IS NOT NULL)),
  CHECK ((status = 'COMPLETED') = (end2end_id IS NOT NULL)),
  CHECK ((status = 'FAILED') = (failed_reason IS NOT NULL))
);

-- One withdrawal in progress per merchant (spec 4.4): the database, not a prior read, is the guard.
CREATE UNIQUE INDEX withdrawals_one_in_progress ON withdrawals (merchant_id) WHERE status IN ('PENDING', 'PROCESSING');
CREATE INDEX withdrawals_page ON withdrawals (merchant_id, created_at DESC, id DESC);
CREATE INDEX withdrawals_page_status ON withdrawals (merchant_id, status, created_at DESC, id DESC);
CREATE INDEX withdrawals_open ON withdrawals (updated_at) WHERE status IN ('PENDING', 'PROCESSING');

-- A withdrawal's money moves at most once per step: reserved once, then either paid or released once.
CREATE UNIQUE INDEX ledger_withdrawal_reserved_once ON ledger_transactions (reference) WHERE kind = 'WITHDRAWAL_RESERVE';
CREATE UNIQUE INDEX ledger_withdrawal_settled_once ON ledger_transactions (reference)
  WHERE kind IN ('WITHDRAWAL_PAID', 'WITHDRAWAL_RELEASE');

-- The simulated PIX network's side of a payout, keyed by the withdrawal id (the provider idempotency key):
-- a second send finds the first one, so a payout is never made twice.
CREATE TABLE sim_payouts (
  withdrawal_id text PRIMARY KEY,
  amount        bigint NOT NULL CHECK (amount > 0),
  pix_key       text NOT NULL,
  pix_key_type  text NOT NULL,
  status        text NOT NULL DEFAULT 'PROCESSING' CHECK (status IN ('PROCESSING', 'COMPLETED', 'FAILED')),
  end_to_end_id text,
  failed_reason text,
  created_at    timestamptz NOT NULL DEFAULT now_ms(),
  settled_at    timestamptz,
  CHECK ((status = 'COMPLETED') = (end_to_end_id IS NOT NULL)),
  CHECK ((status = 'FAILED') = (failed_reason IS NOT NULL)),
  CHECK ((status = 'PROCESSING') = (settled_at IS NULL))
);
