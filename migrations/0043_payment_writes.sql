-- Fewer writes per payment and per charge create (docs/performance.md, fifth round: payment database CPU).
--
-- 1. The ledger's foreign keys go; ledger_post guards what they guarded. Only ledger_post writes
--    ledger_entries and ledger_pending_credits, and every row it writes names the transaction it has just
--    inserted. Each of its entries ran a foreign-key check that locks the account row FOR KEY SHARE: a WAL
--    record and a dirtied page per platform account per payment, and, since every payment of every merchant
--    credits PSP_CLEARING and FEE_REVENUE, concurrent payments turned those two rows' lockers into a
--    MultiXact each time. ledger_post now refuses an account that does not exist with one unlocked read (the
--    one that already finds the merchant accounts to lock), and ledger rows can no longer be deleted, which
--    the foreign keys also prevented for any account or transaction with entries.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_account_id_fkey,
  DROP CONSTRAINT ledger_entries_transaction_id_fkey;
ALTER TABLE ledger_pending_credits DROP CONSTRAINT ledger_pending_credits_account_id_fkey,
  DROP CONSTRAINT ledger_pending_credits_transaction_id_fkey;

-- No statement reads ledger entries by account but the books' checks, which aggregate all of them
-- (verifyLedger): the index took an entry per posted line, every payment's two of them under the same
-- platform keys (PSP_CLEARING, FEE_REVENUE), the one leaf page every concurrent payment writes.
DROP INDEX ledger_entries_account;

CREATE FUNCTION ledger_rows_are_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'rows of % are never deleted', TG_TABLE_NAME USING ERRCODE = 'PX002';
END $$;
CREATE TRIGGER ledger_accounts_kept BEFORE DELETE OR TRUNCATE ON ledger_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_rows_are_kept();
CREATE TRIGGER ledger_transactions_kept BEFORE DELETE OR TRUNCATE ON ledger_transactions
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_rows_are_kept();

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
    SELECT d.id, a.id IS NOT NULL AS found, a.merchant_id, d.delta
    FROM (SELECT x.id, sum(x.amount) AS delta FROM unnest(p_accounts, p_amounts) AS x(id, amount) GROUP BY x.id) d
    LEFT JOIN ledger_accounts a ON a.id = d.id
    ORDER BY d.id
  LOOP
    IF NOT v_row.found THEN
      RAISE EXCEPTION 'ledger posting % % names no account %', p_kind, p_reference, v_row.id USING ERRCODE = 'PX002';
    END IF;
    CONTINUE WHEN v_row.merchant_id IS NULL OR v_row.delta = 0;
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

-- 2. charges' unique end-to-end id and checkout hold only the rows that have one: a NULL never conflicts, yet
--    the full indexes took an entry for every charge at its create and again at its payment's (non-HOT)
--    update. Lookups by either (`end2end_id = $1`, `checkout_id = $1`) imply NOT NULL, so they use these.
--    CREATE INDEX without CONCURRENTLY, as migrations run in a transaction: it holds writes to charges for
--    one scan of the table.
CREATE UNIQUE INDEX charges_end2end_id ON charges (end2end_id) WHERE end2end_id IS NOT NULL;
CREATE UNIQUE INDEX charges_checkout_id ON charges (checkout_id) WHERE checkout_id IS NOT NULL;
ALTER TABLE charges DROP CONSTRAINT charges_end2end_id_key, DROP CONSTRAINT charges_checkout_id_key;

-- 3. events.merchant_id's foreign key goes. An event's merchant is the one of the row whose change causes it
--    (a charge, a withdrawal, a refund…, each with its own key to merchants) or of the endpoint it tests, and
--    a merchant is never deleted: its ledger accounts (created with it) keep it, and they are kept above. The
--    key locked the merchant's row FOR KEY SHARE at every event: a WAL record and a dirtied page per payment,
--    and a MultiXact on that one row whenever payments into the same merchant overlap.
ALTER TABLE events DROP CONSTRAINT events_merchant_id_fkey;
