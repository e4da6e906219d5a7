import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { TestContext } from '../support/context.js';

export type Account = 'available' | 'pending' | 'blocked';
export interface Line {
  id: string; createdAt: string; account: Account; type: string; amount: number; balanceAfter: number; fee: number;
  chargeId: string | null; refundId: string | null; withdrawalId: string | null; disputeId: string | null; end2endId: string | null;
  description: string;
}

export const LINE_KEYS = [
  'account', 'amount', 'balanceAfter', 'chargeId', 'createdAt', 'description', 'disputeId', 'end2endId', 'fee', 'id', 'refundId', 'type', 'withdrawalId',
];

/** Every line of an account through GET /me/statement, page by page, oldest first. */
export async function allLines(t: TestContext, key: string, account: Account = 'available', query = ''): Promise<Line[]> {
  const lines: Line[] = [];
  let after: string | null = null;
  for (;;) {
    const cursor: string = after ? `&after=${encodeURIComponent(after)}` : '';
    const res = await t.request('GET', `/me/statement?account=${account}&limit=100${query}${cursor}`, { key });
    if (res.status !== 200) throw new Error(`statement: ${res.raw}`);
    lines.push(...res.body.data);
    after = res.body.pagination.next;
    if (!after) break;
  }
  return lines.reverse();
}

/**
 * The chain rule (docs/contract/statement.md#statement-chain) over lines given oldest first: the first balanceAfter is its
 * amount (or, for a stretch read mid-chain, `opening` plus it), each next one adds its amount, none is
 * negative, times never go back. Returns the violations.
 */
export function chainProblems(lines: Line[], label = '', opening = 0): string[] {
  const problems: string[] = [];
  let prev = opening;
  let prevAt = '';
  for (const [i, l] of lines.entries()) {
    if (l.balanceAfter !== prev + l.amount) problems.push(`${label} line ${i} (${l.id} ${l.type}): ${prev} + ${l.amount} != ${l.balanceAfter}`);
    if (l.balanceAfter < 0) problems.push(`${label} line ${i} negative: ${l.balanceAfter}`);
    if (l.createdAt < prevAt) problems.push(`${label} line ${i} goes back in time: ${l.createdAt} < ${prevAt}`);
    prev = l.balanceAfter;
    prevAt = l.createdAt;
  }
  return problems;
}

/** The chain holds for each account of the merchant and its newest line is the balance GET /me/balance shows. */
export async function expectStatementMatchesBalance(t: TestContext, key: string): Promise<Record<Account, Line[]>> {
  const out = {} as Record<Account, Line[]>;
  const accounts: Account[] = ['available', 'pending', 'blocked'];
  for (const account of accounts) out[account] = await allLines(t, key, account);
  const balance = (await t.request('GET', '/me/balance', { key })).body.data;
  for (const account of accounts) {
    expect(chainProblems(out[account], account)).toEqual([]);
    expect(out[account].at(-1)?.balanceAfter ?? 0).toBe(balance[account]);
  }
  return out;
}

/** A merchant with `lines` statement lines, as ledger_post writes them (times in milliseconds, as now_ms()), as bench/statement.ts seeds. */
export async function bigStatement(t: TestContext, lines: number): Promise<{ id: string; key: string }> {
  const m = await t.merchant();
  const { rows: [first] } = await t.pool.query<{ id: number }>("SELECT nextval('ledger_transactions_id_seq') AS id");
  await t.pool.query(
    `INSERT INTO ledger_transactions (id, kind, reference, created_at)
     SELECT $1::bigint + s, 'CHARGE_PAYMENT', 'test_' || s, date_trunc('milliseconds', now()) - (($2 - s) * interval '1 second') FROM generate_series(1, $2) s`,
    [first!.id, lines]);
  await t.pool.query(
    `INSERT INTO statement_lines (account_id, seq, id, transaction_id, amount, balance_after, created_at)
     SELECT $3, s, statement_line_id(s), $1::bigint + s, 1000, s * 1000, date_trunc('milliseconds', now()) - (($2 - s) * interval '1 second') FROM generate_series(1, $2) s`,
    [first!.id, lines, `${m.id}:available`]);
  await t.pool.query(`SELECT setval('ledger_transactions_id_seq', $1)`, [first!.id + lines]);
  return m;
}

/** This process's export processes (children running the export bundle). */
export const exportProcesses = () => readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').split(' ').filter(Boolean)
  .filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('statement-export-');
    } catch {
      return false;
    }
  });
