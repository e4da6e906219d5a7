import type { Executor } from '../../../src/platform/db.js';
import { verifyLedger } from '../../../src/ledger/verify.js';

/**
 * What must hold in the database after any workload, crashes included, read with SQL: the ledger's
 * own invariants, each object's postings exactly as its final state implies (so nothing was paid,
 * refunded or reversed twice), one provider payout per withdrawal agreeing with it, and one final
 * event per state change. Returns every violation found.
 */
export async function checkInvariants(db: Executor): Promise<string[]> {
  const problems = await verifyLedger(db);
  const q = async (label: string, sql: string) => {
    const { rows } = await db.query(sql);
    for (const r of rows) problems.push(`${label}: ${JSON.stringify(r)}`);
  };
  await q('charge with two live refunds', `
    SELECT charge_id, count(*) FROM refunds WHERE status IN ('PENDING', 'COMPLETED') GROUP BY charge_id HAVING count(*) > 1`);
  await q('charge paid and credited other than once', `
    SELECT c.id, c.status, count(t.id) AS payments FROM charges c
    LEFT JOIN ledger_transactions t ON t.reference = c.id AND t.kind = 'CHARGE_PAYMENT'
    GROUP BY c.id HAVING count(t.id) <> CASE WHEN c.end2end_id IS NULL THEN 0 ELSE 1 END`);
  await q('refund postings disagree with its state', `
    SELECT r.id, r.status, r.reason, array_agg(t.kind ORDER BY t.id) FILTER (WHERE t.id IS NOT NULL) AS kinds FROM refunds r
    LEFT JOIN ledger_transactions t ON t.reference = r.id
    GROUP BY r.id, r.status, r.reason
    HAVING coalesce(array_agg(t.kind ORDER BY t.id) FILTER (WHERE t.id IS NOT NULL), '{}') <> CASE
      WHEN r.reason = 'DISPUTE' THEN '{}'::text[]
      WHEN r.status = 'PENDING' THEN ARRAY['REFUND']
      WHEN r.status = 'COMPLETED' THEN ARRAY['REFUND', 'REFUND_SETTLED']
      ELSE ARRAY['REFUND', 'REFUND_REVERSAL'] END`);
  await q('charge refunded beyond its amount', `
    SELECT c.id, c.amount, sum(r.amount) AS refunded FROM charges c JOIN refunds r ON r.charge_id = c.id AND r.status <> 'FAILED'
    GROUP BY c.id, c.amount HAVING sum(r.amount) > c.amount`);
  await q('dispute postings disagree with its state', `
    SELECT d.id, d.status, d.outcome, d.blocked_amount, array_agg(t.kind ORDER BY t.id) FILTER (WHERE t.id IS NOT NULL) AS kinds FROM disputes d
    LEFT JOIN ledger_transactions t ON t.reference = d.id
    GROUP BY d.id HAVING coalesce(array_agg(t.kind ORDER BY t.id) FILTER (WHERE t.id IS NOT NULL), '{}') <> CASE
      WHEN d.blocked_amount = 0 THEN '{}'::text[]
      WHEN d.status = 'OPEN' THEN ARRAY['DISPUTE_BLOCK']
      WHEN d.outcome = 'REJECTED' THEN ARRAY['DISPUTE_BLOCK', 'DISPUTE_RELEASE']
      ELSE ARRAY['DISPUTE_BLOCK', 'DISPUTE_RETURN'] END`);
  await q('withdrawal postings disagree with its state', `
    SELECT w.id, w.status, array_agg(t.kind ORDER BY t.id) FILTER (WHERE t.id IS NOT NULL) AS kinds FROM withdrawals w
    LEFT JOIN ledger_transactions t ON t.reference = w.id
    GROUP BY w.id HAVING coalesce(array_agg(t.kind ORDER BY t.id) FILTER (WHERE t.id IS NOT NULL), '{}') <> CASE
      WHEN w.status IN ('PENDING', 'PROCESSING') THEN ARRAY['WITHDRAWAL_RESERVE']
      WHEN w.status = 'COMPLETED' THEN ARRAY['WITHDRAWAL_RESERVE', 'WITHDRAWAL_PAID']
      ELSE ARRAY['WITHDRAWAL_RESERVE', 'WITHDRAWAL_RELEASE'] END`);
  await q('withdrawal disagrees with its payout at the provider', `
    SELECT w.id, w.status, w.end2end_id, p.status AS payout, p.end_to_end_id FROM withdrawals w
    LEFT JOIN sim_payouts p ON p.withdrawal_id = w.id
    WHERE (w.status IN ('COMPLETED', 'FAILED') AND (p.status IS DISTINCT FROM w.status OR p.end_to_end_id IS DISTINCT FROM w.end2end_id))
       OR (w.status = 'PENDING' AND p.withdrawal_id IS NOT NULL)
       OR (p.amount IS DISTINCT FROM w.amount AND p.withdrawal_id IS NOT NULL)`);
  await q('payout at the provider without a withdrawal', `
    SELECT p.withdrawal_id FROM sim_payouts p LEFT JOIN withdrawals w ON w.id = p.withdrawal_id WHERE w.id IS NULL`);
  await q('withdrawal with other than one final event', `
    SELECT w.id, w.status, count(e.id) AS events FROM withdrawals w
    LEFT JOIN events e ON e.type IN ('WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED') AND (e.body::jsonb -> 'data')->>'id' = w.id
    GROUP BY w.id, w.status
    HAVING count(e.id) <> CASE WHEN w.status IN ('COMPLETED', 'FAILED') THEN 1 ELSE 0 END
        OR bool_or(e.type <> 'WITHDRAWAL_' || w.status)`);
  await q('charge with other than one CHARGE_PAID event', `
    SELECT c.id, count(e.id) AS events FROM charges c LEFT JOIN events e ON e.type = 'CHARGE_PAID' AND (e.body::jsonb -> 'data')->>'id' = c.id
    GROUP BY c.id HAVING count(e.id) <> CASE WHEN c.end2end_id IS NULL THEN 0 ELSE 1 END`);
  await q('refund with other than one final event', `
    SELECT r.id, r.status, count(e.id) AS events FROM refunds r
    LEFT JOIN events e ON e.type IN ('REFUND_COMPLETED', 'REFUND_FAILED') AND (e.body::jsonb -> 'data')->'refund'->>'id' = r.id
    GROUP BY r.id, r.status
    HAVING count(e.id) <> CASE WHEN r.status = 'PENDING' THEN 0 ELSE 1 END
        OR bool_or(e.type <> 'REFUND_' || r.status)`);
  await q('charge with other than one SPLIT_RECEIVED per recipient', `
    SELECT c.id, (SELECT count(*) FROM events e WHERE e.type = 'SPLIT_RECEIVED' AND (e.body::jsonb -> 'data')->>'chargeId' = c.id) AS events
    FROM charges c
    WHERE (SELECT count(*) FROM events e WHERE e.type = 'SPLIT_RECEIVED' AND (e.body::jsonb -> 'data')->>'chargeId' = c.id)
       <> CASE WHEN c.end2end_id IS NULL THEN 0 ELSE (SELECT count(*) FROM charge_splits s WHERE s.charge_id = c.id) END`);
  await q('charge expired more than once', `
    SELECT body::jsonb -> 'data' ->> 'id' AS id, count(*) FROM events WHERE type = 'CHARGE_EXPIRED' GROUP BY 1 HAVING count(*) > 1`);
  return problems;
}

/** The platform accounts' balances: the sums of their entries. */
export async function platformBalances(db: Executor): Promise<{ clearing: number; feeRevenue: number; inTransit: number }> {
  const { rows } = await db.query<{ account_id: string; total: number }>(
    `SELECT account_id, sum(amount)::bigint AS total FROM ledger_entries WHERE account_id LIKE 'platform:%' GROUP BY account_id`);
  const of = (id: string) => Number(rows.find((r) => r.account_id === id)?.total ?? 0);
  return { clearing: of('platform:psp_clearing'), feeRevenue: of('platform:fee_revenue'), inTransit: of('platform:payouts_in_transit') };
}
