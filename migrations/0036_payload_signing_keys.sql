-- The key that signs the payer-side payloads (JWS, PS256), made once and kept: the payer's bank checks
-- each payload against the public half published at <PUBLIC_URL>/pix/v2/jwks (docs/contract/subscriptions.md#recurrence-payload).
-- One row; the private key is sealed with ENCRYPTION_KEY (AES-256-GCM), like every stored secret.
-- IF NOT EXISTS: due-date charges' payloads (migration 0025) are signed with the same key, in the same table.
CREATE TABLE IF NOT EXISTS payload_signing_keys (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  kid         text NOT NULL,
  public_jwk  jsonb NOT NULL,
  private_jwk text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now_ms()
);
