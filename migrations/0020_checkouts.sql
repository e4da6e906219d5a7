-- Checkouts, payment links, branding and the public pages (docs/contract/checkouts.md).

CREATE TABLE payment_links (
  id                  text PRIMARY KEY,
  merchant_id         text NOT NULL REFERENCES merchants (id),
  name                text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
  active              boolean NOT NULL DEFAULT true,
  -- Exactly one way to price it: a cart, a fixed amount, or a range the payer types in.
  items               json,
  amount              bigint CHECK (amount BETWEEN 100 AND 100000000),
  amount_min          bigint CHECK (amount_min BETWEEN 100 AND 100000000),
  amount_max          bigint CHECK (amount_max BETWEEN 100 AND 100000000),
  description         text CHECK (char_length(description) <= 140),
  customer_fields     text[] NOT NULL DEFAULT '{}',
  max_payments        integer CHECK (max_payments BETWEEN 1 AND 1000000),
  active_until        timestamptz,
  completion_url      text,
  -- The split as asked for; each checkout resolves it again against its own amount and recipients.
  split               json NOT NULL DEFAULT '[]',
  checkout_expires_in integer NOT NULL CHECK (checkout_expires_in BETWEEN 300 AND 86400),
  created_at          timestamptz NOT NULL DEFAULT now_ms(),
  UNIQUE (id, merchant_id),
  CHECK ((items IS NOT NULL)::int + (amount IS NOT NULL)::int + (amount_min IS NOT NULL)::int = 1),
  CHECK ((amount_min IS NULL) = (amount_max IS NULL) AND amount_min <= amount_max)
);
CREATE INDEX payment_links_page ON payment_links (merchant_id, created_at DESC, id DESC);

CREATE TABLE checkouts (
  id              text PRIMARY KEY,
  merchant_id     text NOT NULL REFERENCES merchants (id),
  charge_id       text NOT NULL UNIQUE,
  amount          bigint NOT NULL CHECK (amount BETWEEN 100 AND 100000000),
  items           json NOT NULL,
  external_id     text CHECK (char_length(external_id) <= 100),
  metadata        json,
  return_url      text,
  completion_url  text,
  payment_link_id text,
  -- The PNG the charge create drew, kept so that a page view never draws it again.
  qr_png          text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now_ms(),
  FOREIGN KEY (charge_id, merchant_id) REFERENCES charges (id, merchant_id),
  FOREIGN KEY (payment_link_id, merchant_id) REFERENCES payment_links (id, merchant_id)
);
CREATE INDEX checkouts_page ON checkouts (merchant_id, created_at DESC, id DESC);
CREATE INDEX checkouts_external_id ON checkouts (merchant_id, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX checkouts_payment_link ON checkouts (payment_link_id, created_at DESC) WHERE payment_link_id IS NOT NULL;

-- The charge a checkout owns points back at it; both rows are written in one transaction, the charge first.
ALTER TABLE charges ADD COLUMN checkout_id text UNIQUE REFERENCES checkouts (id) DEFERRABLE INITIALLY DEFERRED;

-- A waiting payment page learns its checkout's new status from this notification, sent at commit
-- (src/public-pages/status-feed.ts). The WHEN clause keeps every other charge's update free of it.
CREATE FUNCTION notify_checkout_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('checkout_status', NEW.checkout_id);
  RETURN NULL;
END $$;
CREATE TRIGGER charges_checkout_status AFTER UPDATE OF status ON charges
  FOR EACH ROW WHEN (NEW.checkout_id IS NOT NULL AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION notify_checkout_status();

CREATE TABLE merchant_branding (
  merchant_id   text PRIMARY KEY REFERENCES merchants (id),
  display_name  text CHECK (char_length(display_name) BETWEEN 1 AND 60),
  primary_color text CHECK (primary_color ~ '^#[0-9a-f]{6}$'),
  -- The logo is served by Pixgate under a random id that changes with the image (cacheable for ever).
  logo_id       text UNIQUE,
  logo_type     text CHECK (logo_type IN ('image/png', 'image/jpeg')),
  logo          bytea CHECK (octet_length(logo) <= 102400),
  updated_at    timestamptz NOT NULL DEFAULT now_ms(),
  CHECK ((logo IS NULL) = (logo_id IS NULL) AND (logo IS NULL) = (logo_type IS NULL))
);

-- Checkouts made per client address and link in one-minute windows (docs/contract/checkouts.md#link-page).
CREATE TABLE payment_link_hits (
  payment_link_id text NOT NULL,
  address         text NOT NULL,
  window_start    timestamptz NOT NULL,
  hits            integer NOT NULL,
  PRIMARY KEY (payment_link_id, address, window_start)
);
CREATE INDEX payment_link_hits_window ON payment_link_hits (window_start);
