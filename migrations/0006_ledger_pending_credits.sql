-- Hot merchants. Every posting used to lock the merchant balance rows it moves until COMMIT, so all the
-- payments of one busy merchant queued behind each other's commit (docs/performance.md). A credit can
-- never make a balance negative, so it need not wait: when another transaction holds the row, the
-- credit is recorded here, in the same transaction as its entries, and the next posting that holds the
-- row folds it in. A merchant balance is therefore its row plus its pending credits; debits and
-- lockBalance() see both, and verifyLedger() checks that together they equal the sum of the entries.
-- Keep compatible with PostgreSQL 15 (the CI server) and 18 (the embedded one).

CREATE TABLE ledger_pending_credits (
  transaction_id bigint NOT NULL REFERENCES ledger_transactions (id),
  account_id     text NOT NULL REFERENCES ledger_accounts (id),
  amount         bigint NOT NULL CHECK (amount > 0),
  PRIMARY KEY (transaction_id, account_id)
);
CREATE INDEX ledger_pending_credits_account ON ledger_pending_credits (account_id);

-- Same contract as before (one round trip; PX001 with DETAIL = merchant id when a merchant balance would
-- go negative, nothing written; PX002 when unbalanced or malformed). Merchant rows are taken in account-id
-- order as before: a debit waits for its row; a credit takes its row only if it is free (SKIP LOCKED),
-- else leaves a pending credit. Whoever holds a row folds its committed pending credits into it first.
-- Rows are held FOR NO KEY UPDATE (what the balance UPDATE takes anyway), not FOR UPDATE: the foreign key
-- checks of other transactions' entries and pending credits take KEY SHARE on the account, and must not
-- wait for the holder either.
CREATE OR REPLACE FUNCTION ledger_post(p_kind text, p_reference text, p_accounts text[], p_amounts bigint[]) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_tx bigint;
  v_row record;
  v_balance bigint;
  v_folded bigint;
  v_deferred text[] := '{}';
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
    WHERE a.merchant_id IS NOT NULL
    ORDER BY a.id
  LOOP
    IF v_row.delta > 0 THEN
      SELECT balance INTO v_balance FROM ledger_accounts WHERE id = v_row.id FOR NO KEY UPDATE SKIP LOCKED;
      IF NOT FOUND THEN
        v_deferred := v_deferred || v_row.id;
        CONTINUE;
      END IF;
    ELSE
      SELECT balance INTO v_balance FROM ledger_accounts WHERE id = v_row.id FOR NO KEY UPDATE;
    END IF;
    WITH folded AS (DELETE FROM ledger_pending_credits WHERE account_id = v_row.id RETURNING amount)
    SELECT coalesce(sum(amount), 0) INTO v_folded FROM folded;
    IF v_balance + v_folded + v_row.delta < 0 THEN
      RAISE EXCEPTION 'insufficient balance in %', v_row.id USING ERRCODE = 'PX001', DETAIL = v_row.merchant_id;
    END IF;
    UPDATE ledger_accounts SET balance = v_balance + v_folded + v_row.delta WHERE id = v_row.id;
  END LOOP;
  INSERT INTO ledger_transactions (kind, reference) VALUES (p_kind, p_reference) RETURNING id INTO v_tx;
  INSERT INTO ledger_entries (transaction_id, account_id, amount)
    SELECT v_tx, x.id, x.amount FROM unnest(p_accounts, p_amounts) AS x(id, amount);
  INSERT INTO ledger_pending_credits (transaction_id, account_id, amount)
    SELECT v_tx, x.id, sum(x.amount) FROM unnest(p_accounts, p_amounts) AS x(id, amount)
    WHERE x.id = ANY (v_deferred) GROUP BY x.id;
  RETURN v_tx;
END $$;
