-- Subscriptions on Pix Automático (docs/contract/subscriptions.md): the subscription, the claim of each cycle
-- (one row per subscription and cycle, written before the PSP is asked for the cycle's charge), and the
-- link from a charge to its subscription.

CREATE TABLE subscriptions (
  id              text PRIMARY KEY,
  merchant_id     text NOT NULL REFERENCES merchants (id),
  customer_id     text NOT NULL,
  status          text NOT NULL DEFAULT 'CREATED'
                  CHECK (status IN ('CREATED', 'ACTIVE', 'REJECTED', 'EXPIRED', 'CANCELLED', 'COMPLETED')),
  journey         text NOT NULL CHECK (journey IN ('QR', 'QR_WITH_PAYMENT', 'PUSH')),
  -- Exactly one: the same amount every cycle, or the least the merchant may ask for in a cycle.
  amount          bigint CHECK (amount BETWEEN 100 AND 100000000),
  min_amount      bigint CHECK (min_amount BETWEEN 100 AND 100000000),
  frequency       text NOT NULL CHECK (frequency IN ('WEEKLY', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL')),
  start_date      date NOT NULL,
  end_date        date,
  -- The last cycle's due date (null: open-ended): from then on the sweep looks whether the subscription is complete.
  last_due_date   date,
  contract        text NOT NULL CHECK (char_length(contract) BETWEEN 1 AND 35),
  description     text CHECK (char_length(description) <= 35),
  retry_policy    text NOT NULL CHECK (retry_policy IN ('NONE', 'THREE_IN_7_DAYS')),
  -- The QR journeys' code (recurrence location in template 80; journey 3: the first charge's code with it).
  br_code         text,
  -- Journey 3: the immediate charge the composite code pays (written first, in the same transaction).
  first_charge_id text UNIQUE,
  -- Journey 1: the payer's account the authorization request goes to.
  payer_ispb      text CHECK (payer_ispb ~ '^[0-9]{8}$'),
  payer_branch    text CHECK (payer_branch ~ '^[0-9]{1,4}$'),
  payer_account   text CHECK (payer_account ~ '^[0-9]{1,20}$'),
  -- Not authorized by then (startDate's first instant, or the PUSH request's expiry): EXPIRED.
  expires_at      timestamptz NOT NULL,
  -- The recurrence at the provider (API Pix idRec).
  provider_ref    text UNIQUE,
  -- The next cycle not yet claimed, and (fixed amount, ACTIVE) the São Paulo day the sweep claims it.
  next_cycle      integer NOT NULL DEFAULT 0 CHECK (next_cycle >= 0),
  next_issue_on   date,
  created_at      timestamptz NOT NULL DEFAULT now_ms(),
  authorized_at   timestamptz,
  ended_at        timestamptz,
  ended_by        text CHECK (ended_by IN ('MERCHANT', 'PAYER')),
  UNIQUE (id, merchant_id),
  FOREIGN KEY (customer_id, merchant_id) REFERENCES customers (id, merchant_id),
  CHECK ((amount IS NULL) <> (min_amount IS NULL)),
  CHECK (end_date IS NULL OR end_date >= start_date),
  CHECK ((journey = 'QR_WITH_PAYMENT') = (first_charge_id IS NOT NULL)),
  CHECK ((journey = 'PUSH') = (payer_ispb IS NOT NULL AND payer_branch IS NOT NULL AND payer_account IS NOT NULL)),
  CHECK ((status IN ('CREATED', 'ACTIVE')) = (ended_at IS NULL)),
  CHECK (ended_by IS NULL OR status IN ('CANCELLED', 'REJECTED')),
  CHECK (next_issue_on IS NULL OR (status = 'ACTIVE' AND amount IS NOT NULL))
);
CREATE INDEX subscriptions_page ON subscriptions (merchant_id, created_at DESC, id DESC);
CREATE INDEX subscriptions_issue_due ON subscriptions (next_issue_on) WHERE next_issue_on IS NOT NULL;
CREATE INDEX subscriptions_authorization_due ON subscriptions (expires_at) WHERE status = 'CREATED';
CREATE INDEX subscriptions_ending ON subscriptions (last_due_date) WHERE status = 'ACTIVE' AND last_due_date IS NOT NULL;

-- A charge of a subscription: a cycle's, or journey 3's first charge. The first charge is written before its
-- subscription in one transaction, hence deferred.
ALTER TABLE charges ADD COLUMN subscription_id text;
ALTER TABLE charges ADD CONSTRAINT charges_subscription FOREIGN KEY (subscription_id, merchant_id)
  REFERENCES subscriptions (id, merchant_id) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_first_charge FOREIGN KEY (first_charge_id, merchant_id)
  REFERENCES charges (id, merchant_id);
CREATE INDEX charges_subscription_page ON charges (subscription_id, created_at DESC, id DESC) WHERE subscription_id IS NOT NULL;

-- One row per cycle ever claimed: the primary key is what makes a cycle issued at most once across processes,
-- crashes and retries. Claimed (txid chosen) in one transaction, then the PSP is asked for the charge, then the
-- charge is written and linked in another; a claim whose charge is not written yet is completed by the sweep.
CREATE TABLE subscription_cycles (
  subscription_id text NOT NULL,
  merchant_id     text NOT NULL,
  cycle           integer NOT NULL CHECK (cycle >= 0),
  due_date        date NOT NULL,
  amount          bigint NOT NULL CHECK (amount BETWEEN 100 AND 100000000),
  -- Chosen at the claim, so a repeated request to the PSP names the same charge (API Pix cobr txid).
  txid            text NOT NULL UNIQUE CHECK (txid ~ '^[A-Za-z0-9]{26,35}$'),
  charge_id       text UNIQUE,
  -- The subscription ended between the claim and the charge: no charge is written for this cycle.
  abandoned       boolean NOT NULL DEFAULT false,
  -- Failed debit attempts, in order: [{date, outcome, end2endId}]; a paid one is the charge's own payment.
  attempts        jsonb NOT NULL DEFAULT '[]',
  -- The day of the next debit attempt asked of the payer's bank after a failed one (THREE_IN_7_DAYS).
  retry_on        date,
  failed_reason   text,
  claimed_at      timestamptz NOT NULL DEFAULT now_ms(),
  PRIMARY KEY (subscription_id, cycle),
  UNIQUE (subscription_id, due_date),
  FOREIGN KEY (subscription_id, merchant_id) REFERENCES subscriptions (id, merchant_id),
  FOREIGN KEY (charge_id, merchant_id) REFERENCES charges (id, merchant_id),
  CHECK (NOT (abandoned AND charge_id IS NOT NULL))
);
CREATE INDEX subscription_cycles_unissued ON subscription_cycles (claimed_at) WHERE charge_id IS NULL AND NOT abandoned;

-- When a subscription's charge is paid or expires, its subscription may change (journey 3 activates on the
-- first payment; the last cycle completes it). Whatever path settled the charge (the simulator, a PSP
-- notification, the reconciliation sweep, the expiry job), a job in the same transaction makes the
-- subscription follow (src/subscriptions/subscription.tasks.ts); the payment path itself is unchanged.
CREATE FUNCTION queue_subscription_charge_settled() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM graphile_worker.add_job('subscriptions.charge-settled', json_build_object('chargeId', NEW.id),
    job_key => 'subscriptions.charge-settled:' || NEW.id);
  RETURN NULL;
END $$;
CREATE TRIGGER charges_subscription_settled AFTER UPDATE OF status ON charges
  FOR EACH ROW WHEN (NEW.subscription_id IS NOT NULL AND OLD.status IS DISTINCT FROM NEW.status AND NEW.status IN ('PAID', 'EXPIRED'))
  EXECUTE FUNCTION queue_subscription_charge_settled();
