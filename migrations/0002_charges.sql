-- Customers, PIX charges with their split entries, refunds and disputes (MED).

CREATE TABLE customers (
  id          text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  email       text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
  name        text CHECK (char_length(name) BETWEEN 1 AND 120),
  tax_id      text CHECK (tax_id ~ '^([0-9]{11}|[0-9]{14})$'),
  phone       text CHECK (char_length(phone) BETWEEN 1 AND 20),
  created_at  timestamptz NOT NULL DEFAULT now_ms(),
  deleted_at  timestamptz,
  UNIQUE (id, merchant_id) -- target of the charges' same-merchant foreign key
);
-- One active customer per taxId and merchant; a soft-deleted one frees its taxId ("delete and create again").
CREATE UNIQUE INDEX customers_active_tax_id ON customers (merchant_id, tax_id) WHERE deleted_at IS NULL AND tax_id IS NOT NULL;
CREATE INDEX customers_page ON customers (merchant_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX customers_email ON customers (merchant_id, lower(email));

CREATE TABLE charges (
  id           text PRIMARY KEY,
  merchant_id  text NOT NULL REFERENCES merchants (id),
  customer_id  text,
  amount       bigint NOT NULL CHECK (amount BETWEEN 100 AND 100000000),
  -- Stored status; PENDING past expires_at reads as EXPIRED everywhere (charge_status below).
  status       text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'PAID', 'EXPIRED', 'REFUNDED', 'DISPUTED')),
  txid         text NOT NULL UNIQUE,           -- the provider's id: payment notifications find the charge by it
  br_code      text NOT NULL,
  description  text CHECK (char_length(description) <= 140),
  -- Fixed at creation from the merchant's contract, so the quote the merchant accepted is what settles.
  fee          bigint NOT NULL CHECK (fee >= 0),
  net_amount   bigint NOT NULL CHECK (net_amount >= 0),
  expires_at   timestamptz NOT NULL,
  paid_at      timestamptz,
  end2end_id   text UNIQUE,                     -- a payment notification delivered twice credits once
  payer_name   text,
  payer_tax_id text,
  created_at   timestamptz NOT NULL DEFAULT now_ms(),
  UNIQUE (id, merchant_id),
  FOREIGN KEY (customer_id, merchant_id) REFERENCES customers (id, merchant_id),
  CHECK (expires_at > created_at),
  CHECK ((paid_at IS NULL) = (end2end_id IS NULL)),
  CHECK ((paid_at IS NULL) = (status IN ('PENDING', 'EXPIRED')))
);
CREATE INDEX charges_page ON charges (merchant_id, created_at DESC, id DESC);
CREATE INDEX charges_customer ON charges (customer_id) WHERE customer_id IS NOT NULL;
CREATE INDEX charges_pending_expiry ON charges (expires_at) WHERE status = 'PENDING';

-- Decisions part 14: at or after expires_at a PENDING charge is EXPIRED for every read, whether or not
-- the expiry job has run yet. Inlined by the planner, so list filters can use it.
CREATE FUNCTION charge_status(p_status text, p_expires_at timestamptz) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN p_status = 'PENDING' AND p_expires_at <= now() THEN 'EXPIRED' ELSE p_status END
$$;

CREATE TABLE charge_splits (
  charge_id    text NOT NULL,
  merchant_id  text NOT NULL,                   -- the charging merchant (tenant column)
  position     smallint NOT NULL CHECK (position BETWEEN 0 AND 9),
  recipient_id text NOT NULL REFERENCES merchants (id),
  mode         text NOT NULL CHECK (mode IN ('FIXED', 'PERCENT')),
  value        bigint NOT NULL CHECK (value >= 1),
  amount       bigint NOT NULL CHECK (amount >= 1),
  PRIMARY KEY (charge_id, position),
  UNIQUE (charge_id, recipient_id),
  FOREIGN KEY (charge_id, merchant_id) REFERENCES charges (id, merchant_id),
  CHECK (recipient_id <> merchant_id),
  CHECK (mode = 'FIXED' OR value <= 100)
);
CREATE INDEX charge_splits_recipient ON charge_splits (recipient_id);

CREATE TABLE refunds (
  id             text PRIMARY KEY,
  merchant_id    text NOT NULL,
  charge_id      text NOT NULL,
  amount         bigint NOT NULL CHECK (amount >= 0),  -- a dispute's refund may be 0 (nothing could be blocked)
  -- What the charging merchant itself was debited (amount − Σ split; a dispute's blocked amount).
  merchant_debit bigint NOT NULL CHECK (merchant_debit BETWEEN 0 AND amount),
  status         text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'COMPLETED', 'FAILED')),
  reason         text NOT NULL CHECK (reason IN ('MERCHANT', 'DISPUTE')),
  failed_reason  text,
  created_at     timestamptz NOT NULL DEFAULT now_ms(),
  completed_at   timestamptz,
  FOREIGN KEY (charge_id, merchant_id) REFERENCES charges (id, merchant_id),
  CHECK ((status = 'COMPLETED') = (completed_at IS NOT NULL)),
  CHECK ((status = 'FAILED') = (failed_reason IS NOT NULL))
);
-- A charge is refunded at most once: only a FAILED refund may be followed by another.
CREATE UNIQUE INDEX refunds_one_live_per_charge ON refunds (charge_id) WHERE status IN ('PENDING', 'COMPLETED');
CREATE INDEX refunds_charge ON refunds (charge_id, created_at DESC);
CREATE INDEX refunds_pending ON refunds (created_at) WHERE status = 'PENDING';

CREATE TABLE disputes (
  id             text PRIMARY KEY,
  merchant_id    text NOT NULL,
  charge_id      text NOT NULL,
  status         text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'RESOLVED')),
  outcome        text CHECK (outcome IN ('ACCEPTED', 'REJECTED')),
  blocked_amount bigint NOT NULL CHECK (blocked_amount >= 0),
  created_at     timestamptz NOT NULL DEFAULT now_ms(),
  resolved_at    timestamptz,
  FOREIGN KEY (charge_id, merchant_id) REFERENCES charges (id, merchant_id),
  CHECK ((status = 'RESOLVED') = (outcome IS NOT NULL)),
  CHECK ((status = 'RESOLVED') = (resolved_at IS NOT NULL))
);
CREATE UNIQUE INDEX disputes_one_open_per_charge ON disputes (charge_id) WHERE status = 'OPEN';
