-- The statement (extrato, decisions part 17). Every amount applied to a merchant balance row becomes a
-- statement line, and its place (the account's next `seq`) and its `balance_after` are assigned at that
-- moment, under that row's lock, by the same function that moves the row: so, per account, in `seq`
-- order, balance_after[n] = balance_after[n-1] + amount[n] holds by construction, whatever runs at the
-- same time, and the newest line's balance_after IS the row's balance. A pending credit (migration 0006)
-- is not in the row yet, so it has no line yet: it gets its place when a holder of the row folds it in
-- (the next posting, or a statement read, which folds first). A merchant balance = its row + its
-- pending credits = the last line's balance_after + its pending credits.
-- Keep compatible with PostgreSQL 15 (the CI server) and 18 (the embedded one).

-- Where the account's statement ends: written together with `balance`, under the same lock.
ALTER TABLE ledger_accounts
  ADD COLUMN line_seq bigint NOT NULL DEFAULT 0,
  ADD COLUMN line_at timestamptz;

-- Written only by the ledger functions below. No foreign keys: each would be one more lookup and lock on
-- the money path, and verifyLedger() checks every line against the entries.
CREATE TABLE statement_lines (
  account_id     text NOT NULL,
  seq            bigint NOT NULL CHECK (seq > 0),
  -- 'stl_' + seq in 12 hex digits + 22 random base64url characters: unique, and within an account the
  -- ids sort (byte order) as the lines were applied, so (created_at, id) pages exactly in posting order.
  id             text COLLATE "C" NOT NULL,
  transaction_id bigint NOT NULL,
  amount         bigint NOT NULL CHECK (amount <> 0),
  balance_after  bigint NOT NULL CHECK (balance_after >= 0),
  -- The posting's time, never earlier than the account's previous line (so time order = posting order).
  created_at     timestamptz NOT NULL
);
-- The only index: pages, exports, time ranges and the balance at a time are all ranges of it.
CREATE UNIQUE INDEX statement_lines_page ON statement_lines (account_id, created_at, id);

CREATE FUNCTION statement_line_id(p_seq bigint) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT 'stl_' || lpad(to_hex(p_seq), 12, '0') || rtrim(translate(encode(uuid_send(gen_random_uuid()), 'base64'), '+/', '-_'), '=')
$$;

-- Folds the committed pending credits of a merchant row the caller holds (FOR NO KEY UPDATE) into its
-- statement, oldest transaction first, and returns the row's new state; the caller writes the row. Run as
-- its own statements (fresh snapshots), so credits the previous holder already folded are gone.
CREATE FUNCTION ledger_fold_held(p_account text, INOUT p_balance bigint, INOUT p_seq bigint, INOUT p_at timestamptz)
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM ledger_pending_credits WHERE account_id = p_account) THEN
    RETURN;
  END IF;
  WITH folded AS (
    DELETE FROM ledger_pending_credits WHERE account_id = p_account RETURNING transaction_id, amount
  ), placed AS (
    SELECT f.transaction_id, f.amount,
           p_seq + row_number() OVER w AS seq,
           p_balance + sum(f.amount) OVER w AS balance_after,
           greatest(p_at, max(t.created_at) OVER w) AS created_at
    FROM folded f JOIN ledger_transactions t ON t.id = f.transaction_id
    WINDOW w AS (ORDER BY f.transaction_id)
  ), lines AS (
    INSERT INTO statement_lines (account_id, seq, id, transaction_id, amount, balance_after, created_at)
    SELECT p_account, seq, statement_line_id(seq), transaction_id, amount, balance_after, created_at FROM placed
    RETURNING seq, balance_after, created_at
  )
  -- Credits only: the last line has the highest seq, balance and time.
  SELECT coalesce(max(l.balance_after), p_balance), coalesce(max(l.seq), p_seq), coalesce(max(l.created_at), p_at)
  INTO p_balance, p_seq, p_at FROM lines l;
END $$;

-- Same contract as migration 0006 (one round trip; PX001 with DETAIL = merchant id, nothing written; PX002;
-- a credit to a held row is left pending), plus: each merchant row this posting moves gets its line.
CREATE OR REPLACE FUNCTION ledger_post(p_kind text, p_reference text, p_accounts text[], p_amounts bigint[]) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_tx bigint;
  v_row record;
  v_balance bigint;
  v_seq bigint;
  v_at timestamptz;
  v_deferred text[] := '{}';
  v_line_accounts text[] := '{}';
  v_line_amounts bigint[] := '{}';
  v_line_seqs bigint[] := '{}';
  v_line_afters bigint[] := '{}';
  v_line_ats timestamptz[] := '{}';
BEGIN
  IF coalesce(array_length(p_accounts, 1), 0) < 2 OR array_length(p_accounts, 1) <> array_length(p_amounts, 1) THEN
    RAISE EXCEPTION 'ledger posting needs at least two entries' USING ERRCODE = 'PX002';
  END IF;
  IF (SELECT sum(a) FROM unnest(p_amounts) a) <> 0 THEN
    RAISE EXCEPTION 'ledger posting % % is not balanced', p_kind, p_reference USING ERRCODE = 'PX002';
  END IF;
  FOR v_row IN
    SELECT a.id, a.merchant_id, d.delta
    FROM ledger_accounts a
    JOIN (SELECT x.id, sum(x.amount) AS delta FROM unnest(p_accounts, p_amounts) AS x(id, amount) GROUP BY x.id) d ON d.id = a.id
    WHERE a.merchant_id IS NOT NULL AND d.delta <> 0
    ORDER BY a.id
  LOOP
    IF v_row.delta > 0 THEN
      SELECT balance, line_seq, line_at INTO v_balance, v_seq, v_at FROM ledger_accounts WHERE id = v_row.id FOR NO KEY UPDATE SKIP LOCKED;
      IF NOT FOUND THEN
        v_deferred := v_deferred || v_row.id;
        CONTINUE;
      END IF;
    ELSE
      SELECT balance, line_seq, line_at INTO v_balance, v_seq, v_at FROM ledger_accounts WHERE id = v_row.id FOR NO KEY UPDATE;
    END IF;
    SELECT f.p_balance, f.p_seq, f.p_at INTO v_balance, v_seq, v_at FROM ledger_fold_held(v_row.id, v_balance, v_seq, v_at) f;
    IF v_balance + v_row.delta < 0 THEN
      RAISE EXCEPTION 'insufficient balance in %', v_row.id USING ERRCODE = 'PX001', DETAIL = v_row.merchant_id;
    END IF;
    v_balance := v_balance + v_row.delta;
    v_seq := v_seq + 1;
    v_at := greatest(v_at, now_ms());
    UPDATE ledger_accounts SET balance = v_balance, line_seq = v_seq, line_at = v_at WHERE id = v_row.id;
    v_line_accounts := v_line_accounts || v_row.id;
    v_line_amounts := v_line_amounts || v_row.delta;
    v_line_seqs := v_line_seqs || v_seq;
    v_line_afters := v_line_afters || v_balance;
    v_line_ats := v_line_ats || v_at;
  END LOOP;
  INSERT INTO ledger_transactions (kind, reference) VALUES (p_kind, p_reference) RETURNING id INTO v_tx;
  INSERT INTO ledger_entries (transaction_id, account_id, amount)
    SELECT v_tx, x.id, x.amount FROM unnest(p_accounts, p_amounts) AS x(id, amount);
  INSERT INTO statement_lines (account_id, seq, id, transaction_id, amount, balance_after, created_at)
    SELECT x.account, x.seq, statement_line_id(x.seq), v_tx, x.amount, x.after, x.at
    FROM unnest(v_line_accounts, v_line_seqs, v_line_amounts, v_line_afters, v_line_ats) AS x(account, seq, amount, after, at);
  INSERT INTO ledger_pending_credits (transaction_id, account_id, amount)
    SELECT v_tx, x.id, sum(x.amount) FROM unnest(p_accounts, p_amounts) AS x(id, amount)
    WHERE x.id = ANY (v_deferred) GROUP BY x.id;
  RETURN v_tx;
END $$;

-- A statement read folds the account's committed pending credits first, so that the statement it shows
-- ends at the balance GET /me/balance shows. It waits for a holder of the row (a posting, milliseconds).
CREATE FUNCTION ledger_fold(p_account text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_balance bigint;
  v_seq bigint;
  v_at timestamptz;
  v_new_seq bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM ledger_pending_credits WHERE account_id = p_account) THEN
    RETURN;
  END IF;
  SELECT balance, line_seq, line_at INTO v_balance, v_seq, v_at FROM ledger_accounts
  WHERE id = p_account AND merchant_id IS NOT NULL FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  v_new_seq := v_seq;
  SELECT f.p_balance, f.p_seq, f.p_at INTO v_balance, v_new_seq, v_at FROM ledger_fold_held(p_account, v_balance, v_seq, v_at) f;
  IF v_new_seq <> v_seq THEN
    UPDATE ledger_accounts SET balance = v_balance, line_seq = v_new_seq, line_at = v_at WHERE id = p_account;
  END IF;
END $$;

-- Existing books get their lines, in posting order (transaction id: a debit takes its id while holding
-- the row, after every posting it counted; so running sums in that order never go negative), and every
-- pending credit is folded. Postings wait meanwhile (a process of the previous version may be running).
LOCK TABLE ledger_accounts IN EXCLUSIVE MODE;
LOCK TABLE ledger_pending_credits IN EXCLUSIVE MODE;

WITH moved AS (
  SELECT e.account_id, e.transaction_id, sum(e.amount)::bigint AS amount, t.created_at
  FROM ledger_entries e
  JOIN ledger_accounts a ON a.id = e.account_id AND a.merchant_id IS NOT NULL
  JOIN ledger_transactions t ON t.id = e.transaction_id
  GROUP BY e.account_id, e.transaction_id, t.created_at
  HAVING sum(e.amount) <> 0
), placed AS (
  SELECT account_id, transaction_id, amount,
         row_number() OVER w AS seq, sum(amount) OVER w AS balance_after, max(created_at) OVER w AS created_at
  FROM moved
  WINDOW w AS (PARTITION BY account_id ORDER BY transaction_id)
)
INSERT INTO statement_lines (account_id, seq, id, transaction_id, amount, balance_after, created_at)
SELECT account_id, seq, statement_line_id(seq), transaction_id, amount, balance_after, created_at FROM placed;

DELETE FROM ledger_pending_credits;

UPDATE ledger_accounts a SET balance = l.balance_after, line_seq = l.seq, line_at = l.created_at
FROM (SELECT DISTINCT ON (account_id) account_id, seq, balance_after, created_at
      FROM statement_lines ORDER BY account_id, seq DESC) l
WHERE a.id = l.account_id;
