-- Due-date charges, BACEN `cobv` (docs/contract/due-date-charges.md).

-- A due-date charge keeps its terms as given; an immediate charge has them all null. Its `amount` is the
-- original value V; what a payment brings (V − rebate − discount + fine + interest on its day) is recorded
-- at payment in paid_amount and paid_breakdown, and fee and net_amount are then replaced by those of the
-- amount paid, computed from the merchant's fee terms as they were at creation (fee_fixed, fee_bps).
ALTER TABLE charges
  ADD COLUMN due_date       date,
  ADD COLUMN days_after_due integer CHECK (days_after_due BETWEEN 0 AND 365),
  -- {fine, interest, discount, rebate}: each rule as the API took it, or null when not given.
  ADD COLUMN due_rules      jsonb,
  ADD COLUMN fee_fixed      bigint CHECK (fee_fixed >= 0),
  ADD COLUMN fee_bps        integer CHECK (fee_bps BETWEEN 0 AND 10000),
  ADD COLUMN paid_amount    bigint CHECK (paid_amount > 0),
  -- {original, rebate, discount, fine, interest} in cents: what the paid amount is made of.
  ADD COLUMN paid_breakdown jsonb,
  ADD CONSTRAINT charges_due_date_terms CHECK (
    (due_date IS NULL) = (days_after_due IS NULL) AND (due_date IS NULL) = (due_rules IS NULL)
    AND (due_date IS NULL) = (fee_fixed IS NULL) AND (due_date IS NULL) = (fee_bps IS NULL)),
  ADD CONSTRAINT charges_paid_amount CHECK (
    (paid_amount IS NULL) = (paid_breakdown IS NULL) AND (paid_amount IS NULL OR (due_date IS NOT NULL AND paid_at IS NOT NULL)));

-- The simulator plays the merchant's PSP for due-date charges: the location of a charge's payer-side
-- payload (`<PUBLIC_URL>/pix/v2/cobv/<token>`, a capability URL) is its own record, as a PSP's `loc` is.
-- Written before the charge (the BR Code carries the location), so a token may name no charge: 404.
CREATE TABLE sim_cobv_locations (
  token      text PRIMARY KEY CHECK (token ~ '^[A-Za-z0-9]{32}$'),
  txid       text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now_ms()
);

-- The key that signs the payer-side payloads (JWS, PS256), made once and kept: the payer's bank checks
-- each payload against the public half published at <PUBLIC_URL>/pix/v2/jwks. One row; the private key
-- is sealed with ENCRYPTION_KEY (AES-256-GCM), like every stored secret.
CREATE TABLE payload_signing_keys (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  kid         text NOT NULL,
  public_jwk  jsonb NOT NULL,
  private_jwk text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now_ms()
);
