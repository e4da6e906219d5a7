-- Foundation: merchants, API keys, the double-entry ledger, idempotency records, events.
-- Keep compatible with PostgreSQL 15 (the CI server) and 18 (the embedded one).

-- Timestamps are kept at millisecond precision: the API shows milliseconds and keyset cursors carry
-- them, so a stored microsecond would make a cursor compare unequal to the row it came from.
CREATE FUNCTION now_ms() RETURNS timestamptz LANGUAGE sql STABLE AS $$ SELECT date_trunc('milliseconds', now()) $$;

CREATE TABLE merchants (
  id                   text PRIMARY KEY,
  user_name            text NOT NULL,
  email                text NOT NULL,
  kyc_status           text NOT NULL DEFAULT 'PENDING' CHECK (kyc_status IN ('PENDING', 'APPROVED', 'REJECTED')),
  kyc_trade_name       text,
  kyc_legal_name       text,
  kyc_full_name        text,
  kyc_tax_id           text,
  pix_key              text,
  pix_key_type         text CHECK (pix_key_type IN ('CPF', 'CNPJ', 'EMAIL', 'TELEFONE', 'CHAVE_ALEATORIA')),
  city                 text NOT NULL DEFAULT 'SAO PAULO',
  min_ticket           bigint NOT NULL DEFAULT 100 CHECK (min_ticket >= 0),
  max_ticket           bigint NOT NULL DEFAULT 100000000 CHECK (max_ticket >= 0),
  max_withdrawal       bigint NOT NULL DEFAULT 100000000 CHECK (max_withdrawal >= 0),
  withdrawals_enabled  boolean NOT NULL DEFAULT true,
  charge_fee_fixed     bigint NOT NULL DEFAULT 0 CHECK (charge_fee_fixed >= 0),
  charge_fee_bps       integer NOT NULL DEFAULT 0 CHECK (charge_fee_bps BETWEEN 0 AND 10000),
  withdrawal_fee_fixed bigint NOT NULL DEFAULT 0 CHECK (withdrawal_fee_fixed >= 0),
  suspended            boolean NOT NULL DEFAULT false,
  created_at           timestamptz NOT NULL DEFAULT now_ms(),
  CHECK (min_ticket <= max_ticket),
  CHECK ((pix_key IS NULL) = (pix_key_type IS NULL))
);
CREATE INDEX merchants_page ON merchants (created_at DESC, id DESC);

CREATE TABLE api_keys (
  id          text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  key_hash    bytea NOT NULL UNIQUE,          -- SHA-256 of the key; the key itself is never stored
  last4       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now_ms(),
  revoked_at  timestamptz
);
CREATE INDEX api_keys_merchant ON api_keys (merchant_id);

-- Ledger. Account ids are readable and deterministic ('<merchant id>:available', 'platform:fee_revenue'),
-- and every posting locks the accounts it touches in id order, so concurrent postings cannot deadlock.
-- Amounts are signed: an entry adds to its account's balance; the entries of a transaction sum to zero.
CREATE TABLE ledger_accounts (
  id          text PRIMARY KEY,
  merchant_id text REFERENCES merchants (id),
  kind        text NOT NULL CHECK (kind IN ('AVAILABLE', 'PENDING', 'BLOCKED', 'FEE_REVENUE', 'PSP_CLEARING', 'PAYOUTS_IN_TRANSIT')),
  balance     bigint NOT NULL DEFAULT 0,
  -- Merchant balances are what the API shows and what may never go negative. Platform accounts keep no
  -- running balance row (it is the sum of their entries): updating one shared row on every payment
  -- would serialise all merchants behind a single row lock.
  CHECK (merchant_id IS NULL OR balance >= 0),
  CHECK ((merchant_id IS NULL) = (kind IN ('FEE_REVENUE', 'PSP_CLEARING', 'PAYOUTS_IN_TRANSIT'))),
  UNIQUE (merchant_id, kind)
);

INSERT INTO ledger_accounts (id, kind) VALUES
  ('platform:fee_revenue', 'FEE_REVENUE'),
  ('platform:psp_clearing', 'PSP_CLEARING'),
  ('platform:payouts_in_transit', 'PAYOUTS_IN_TRANSIT');

CREATE TABLE ledger_transactions (
  id         bigserial PRIMARY KEY,
  kind       text NOT NULL,            -- e.g. CHARGE_PAYMENT, REFUND, WITHDRAWAL_RESERVE
  reference  text NOT NULL,            -- the business object id (chg_, ref_, wd_, dsp_)
  created_at timestamptz NOT NULL DEFAULT now_ms()
);
CREATE INDEX ledger_transactions_reference ON ledger_transactions (reference);

CREATE TABLE ledger_entries (
  id             bigserial PRIMARY KEY,
  transaction_id bigint NOT NULL REFERENCES ledger_transactions (id),
  account_id     text NOT NULL REFERENCES ledger_accounts (id),
  amount         bigint NOT NULL CHECK (amount <> 0)
);
CREATE INDEX ledger_entries_account ON ledger_entries (account_id);
CREATE INDEX ledger_entries_transaction ON ledger_entries (transaction_id);

-- Writes one balanced transaction and moves the merchant balances with it, in one statement's time.
-- SQLSTATE PX001 (DETAIL = merchant id): a merchant balance would go negative; nothing is written.
-- SQLSTATE PX002: the posting is not balanced or malformed.
CREATE FUNCTION ledger_post(p_kind text, p_reference text, p_accounts text[], p_amounts bigint[]) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_tx bigint;
  v_row record;
BEGIN
  IF coalesce(array_length(p_accounts, 1), 0) < 2 OR array_length(p_accounts, 1) <> array_length(p_amounts, 1) THEN
    RAISE EXCEPTION 'ledger posting needs at least two entries' USING ERRCODE = 'PX002';
  END IF;
  IF (SELECT sum(a) FROM unnest(p_amounts) a) <> 0 THEN
    RAISE EXCEPTION 'ledger posting % % is not balanced', p_kind, p_reference USING ERRCODE = 'PX002';
  END IF;
  FOR v_row IN
    SELECT a.id, a.merchant_id, a.balance + d.delta AS after
    FROM ledger_accounts a
    JOIN (SELECT x.id, sum(x.amount) AS delta FROM unnest(p_accounts, p_amounts) AS x(id, amount) GROUP BY x.id) d ON d.id = a.id
    WHERE a.merchant_id IS NOT NULL
    ORDER BY a.id
    FOR UPDATE OF a
  LOOP
    IF v_row.after < 0 THEN
      RAISE EXCEPTION 'insufficient balance in %', v_row.id USING ERRCODE = 'PX001', DETAIL = v_row.merchant_id;
    END IF;
  END LOOP;
  INSERT INTO ledger_transactions (kind, reference) VALUES (p_kind, p_reference) RETURNING id INTO v_tx;
  INSERT INTO ledger_entries (transaction_id, account_id, amount)
    SELECT v_tx, x.id, x.amount FROM unnest(p_accounts, p_amounts) AS x(id, amount);
  UPDATE ledger_accounts a SET balance = a.balance + d.delta
    FROM (SELECT x.id, sum(x.amount) AS delta FROM unnest(p_accounts, p_amounts) AS x(id, amount) GROUP BY x.id) d
    WHERE d.id = a.id AND a.merchant_id IS NOT NULL;
  RETURN v_tx;
END $$;

-- Idempotency-Key answers, kept 24 h. The row commits in the same transaction as the work it answers for.
CREATE TABLE idempotency_keys (
  merchant_id  text NOT NULL REFERENCES merchants (id),
  key          text NOT NULL,
  request_hash text NOT NULL,
  status_code  integer NOT NULL,
  body         jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now_ms(),
  PRIMARY KEY (merchant_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Events are recorded in the transaction of the state change that causes them; deliveries fan out from here.
CREATE TABLE events (
  id          text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  type        text NOT NULL,
  data        jsonb NOT NULL,
  -- A withdrawal's clientCallbackUrl: its events go only to that URL's endpoint (spec 4.4).
  callback_url text,
  created_at  timestamptz NOT NULL DEFAULT now_ms()
);
CREATE INDEX events_merchant ON events (merchant_id, created_at DESC);
