-- Failed attempts of the login and answer limits (docs/contract/access.md#login-limits), one row per attempt,
-- counted in the database so every process agrees. `subject` says what is limited:
--   'email:<lower-cased e-mail>'      logins for one e-mail, 5 in 15 minutes (before: login_failures)
--   'address:<client address or /64>' logins from one address across e-mails, 20 a minute
--   'user:<user id>'                  wrong TOTP codes and current passwords of a logged-in user, 5 in 15 minutes
-- Keep compatible with PostgreSQL 15 (the CI server) and 18 (the embedded one).

CREATE TABLE auth_failures (
  id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  subject text NOT NULL,
  at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX auth_failures_subject_at ON auth_failures (subject, at);

-- The per-e-mail failures still in their window carry over, so an upgrade lifts no block.
INSERT INTO auth_failures (subject, at)
  SELECT 'email:' || email, at FROM login_failures WHERE at > now() - interval '15 minutes' ORDER BY at;
-- login_failures stays: in a rolling deploy the processes still on the previous version log in through it until
-- they are replaced (a DROP here answered their logins with 500). A later migration drops it.
