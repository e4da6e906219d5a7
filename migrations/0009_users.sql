-- Dashboard users, invitations, sessions, login throttling, self-service API keys (decisions part 15).
-- Keep compatible with PostgreSQL 15 (the CI server) and 18 (the embedded one).

CREATE TABLE users (
  id             text PRIMARY KEY,
  merchant_id    text NOT NULL REFERENCES merchants (id),
  email          text NOT NULL,
  name           text NOT NULL,
  role           text NOT NULL CHECK (role IN ('OWNER', 'DEVELOPER', 'FINANCE', 'VIEWER')),
  -- scrypt, with its parameters and salt; null until the invitation is accepted.
  password_hash  text,
  -- AES-GCM sealed base32 secret: pending while totp_enabled is false, in use once confirmed.
  totp_secret    text,
  totp_enabled   boolean NOT NULL DEFAULT false,
  -- The last 30 s step whose code was accepted: a code is refused once used (replay).
  totp_last_step bigint,
  created_at     timestamptz NOT NULL DEFAULT now_ms(),
  last_login_at  timestamptz,
  CHECK (NOT totp_enabled OR totp_secret IS NOT NULL)
);
-- One user per e-mail on the whole platform, compared case-insensitively.
CREATE UNIQUE INDEX users_email ON users (lower(email));
CREATE INDEX users_merchant_page ON users (merchant_id, created_at DESC, id DESC);

-- Single-use links; only the token's SHA-256 is kept.
CREATE TABLE invitations (
  token_hash bytea PRIMARY KEY,
  user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now_ms(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX invitations_user ON invitations (user_id);

-- A JWT's jti names its row; the row is read on every request, so ending it revokes the token at once.
CREATE TABLE sessions (
  id         text PRIMARY KEY,
  user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now_ms(),
  expires_at timestamptz NOT NULL,
  ended_at   timestamptz
);
CREATE INDEX sessions_user_open ON sessions (user_id) WHERE ended_at IS NULL;

-- Failed logins per e-mail (lower case), counted in the database so every process agrees.
CREATE TABLE login_failures (
  id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email text NOT NULL,
  at    timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX login_failures_email_at ON login_failures (email, at);

-- Self-service keys have a name; keys issued before keep working as "default".
ALTER TABLE api_keys ADD COLUMN name text NOT NULL DEFAULT 'default';
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
CREATE INDEX api_keys_merchant_page ON api_keys (merchant_id, created_at DESC, id DESC);
