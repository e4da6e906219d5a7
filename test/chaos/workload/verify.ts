import { check } from './check.js';
import { checkInvariants, platformBalances } from './invariants.js';
import type { Workload } from './workload.js';

/**
 * After settle(): every refund and withdrawal reached the final state the model expects, every
 * merchant's balance is what its own history implies, the platform accounts are what the history
 * implies, nothing exists twice, and the database's invariants hold.
 */
export async function verifyFinal(w: Workload): Promise<void> {
  const { model, client } = w;
  const ids = model.merchants.map((m) => m.id);

  const refunds = await client.db.query<{ id: string; charge_id: string; status: string; reason: string }>(
    'SELECT id, charge_id, status, reason FROM refunds WHERE merchant_id = ANY($1)', [ids]);
  const status = new Map(refunds.rows.map((r) => [r.id, r.status]));
  for (const r of refunds.rows) check(r.status === 'COMPLETED' || r.status === 'FAILED', `refund ${r.id} ended ${r.status}`);
  for (const c of model.charges) {
    if (c.liveRefund) check(status.get(c.liveRefund.id) === 'COMPLETED', `refund ${c.liveRefund.id} of ${c.id} ended ${status.get(c.liveRefund.id)}`);
    for (const f of c.failedRefunds) check(status.get(f.id) === 'FAILED', `refund ${f.id} ended ${status.get(f.id)}, expected FAILED`);
    const merchantRefunds = refunds.rows.filter((r) => r.charge_id === c.id && r.reason === 'MERCHANT').length;
    check(merchantRefunds === (c.liveRefund ? 1 : 0) + c.failedRefunds.length, `charge ${c.id} has ${merchantRefunds} refunds in the database`,
      { live: c.liveRefund, failed: c.failedRefunds });
  }

  for (const wd of model.withdrawals) {
    check(wd.final !== null, `withdrawal ${wd.id} not final`);
    check(wd.expect === 'EITHER' || wd.final === wd.expect, `withdrawal ${wd.id} ended ${wd.final}, expected ${wd.expect}`);
  }

  const counts = await client.db.query<{ merchant_id: string; charges: number; withdrawals: number; disputes: number }>(
    `SELECT m.id AS merchant_id,
       (SELECT count(*)::int FROM charges c WHERE c.merchant_id = m.id) AS charges,
       (SELECT count(*)::int FROM withdrawals x WHERE x.merchant_id = m.id) AS withdrawals,
       (SELECT count(*)::int FROM disputes d WHERE d.merchant_id = m.id) AS disputes
     FROM merchants m WHERE m.id = ANY($1)`, [ids]);
  for (const m of model.merchants) {
    const row = counts.rows.find((r) => r.merchant_id === m.id)!;
    const disputes = model.charges.filter((c) => c.merchant === m).reduce((n, c) => n + c.rejectedDisputes.length + (c.dispute ? 1 : 0), 0);
    const expected = {
      charges: model.charges.filter((c) => c.merchant === m).length,
      withdrawals: model.withdrawals.filter((x) => x.merchant === m).length,
      disputes,
    };
    check(row.charges === expected.charges && row.withdrawals === expected.withdrawals && row.disputes === expected.disputes,
      `merchant ${m.index} (${m.id}): objects in the database`, row, expected);
  }

  await checkBalances(w);

  const platform = await platformBalances(client.db);
  const want = model.platform(status);
  check(platform.clearing === want.clearing && platform.feeRevenue === want.feeRevenue && platform.inTransit === want.inTransit,
    'platform accounts differ from what the history implies', platform, want);

  const problems = await checkInvariants(client.db);
  check(problems.length === 0, 'database invariants broken', ...problems);
}

/** Every merchant's balance as the API shows it is what its own history implies (nothing in flight). */
export async function checkBalances(w: Workload): Promise<void> {
  const expected = w.model.balances();
  const mismatches: string[] = [];
  await Promise.all(w.model.merchants.map(async (m) => {
    const r = await w.client.merchant(m.key, 'GET', '/me/balance');
    check(r.status === 200, 'balance', r.body);
    const want = expected.get(m)!;
    const got = r.body.data;
    if (got.available !== want.available || got.pending !== want.pending || got.blocked !== want.blocked) {
      mismatches.push(`merchant ${m.index} (${m.id}): API ${JSON.stringify(got)}, history implies ${JSON.stringify(want)}`);
    }
    for (const account of ['available', 'pending', 'blocked'] as const) {
      mismatches.push(...(await statementProblems(w, m.key, account, got[account])).map((p) => `merchant ${m.index} (${m.id}): ${p}`));
    }
  }));
  check(mismatches.length === 0, 'balances differ from what the history implies', ...mismatches);
}

/**
 * The statement of one account through the API (docs/contract/statement.md#statement-chain), every page: in posting order each
 * balanceAfter is the one before plus its amount (the first is its amount), none negative, and the newest
 * is the balance the API shows (nothing in flight).
 */
async function statementProblems(w: Workload, key: string, account: string, balance: number): Promise<string[]> {
  const lines: Array<{ id: string; amount: number; balanceAfter: number }> = [];
  for (let after: string | null = null, first = true; first || after; first = false) {
    const r = await w.client.merchant(key, 'GET', `/me/statement?account=${account}&limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`);
    if (r.status !== 200) return [`statement ${account}: ${r.status} ${r.raw}`];
    lines.push(...r.body.data);
    after = r.body.pagination.next;
  }
  lines.reverse();
  const problems: string[] = [];
  let prev = 0;
  for (const l of lines) {
    if (l.balanceAfter !== prev + l.amount || l.balanceAfter < 0) problems.push(`statement ${account} line ${l.id}: ${prev} + ${l.amount} -> ${l.balanceAfter}`);
    prev = l.balanceAfter;
  }
  if (prev !== balance) problems.push(`statement ${account} ends at ${prev}, the balance is ${balance}`);
  return problems;
}
