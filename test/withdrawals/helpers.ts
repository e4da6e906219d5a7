import { randomUUID } from 'node:crypto';
import type { TestContext } from '../support/context.js';
import { fund } from '../support/ledger.js';

export const CREATED_FIELDS = ['amount', 'createdAt', 'description', 'fee', 'id', 'status'];
export const LIST_FIELDS = [...CREATED_FIELDS, 'completedAt', 'failedReason'].sort();
export const FULL_FIELDS = [...LIST_FIELDS, 'end2endId', 'pixKey', 'pixKeyType', 'taxId'].sort();

export const evpKey = () => ({ pixKey: randomUUID(), pixKeyType: 'CHAVE_ALEATORIA' });

/** A merchant with `balance` cents available and the given contract fields. */
export async function fundedMerchant(t: TestContext, balance: number, fields: Record<string, unknown> = {}) {
  const m = await t.merchant(fields);
  if (balance > 0) await fund(t.pool, m.id, balance);
  return m;
}

export async function balanceOf(t: TestContext, key: string) {
  const res = await t.request('GET', '/me/balance', { key });
  return res.body.data as { available: number; pending: number; blocked: number };
}

export function createWithdrawal(t: TestContext, key: string, body: Record<string, unknown>, headers?: Record<string, string>) {
  return t.request('POST', '/withdrawals', { key, body: { ...evpKey(), ...body }, headers });
}

export async function ledgerKinds(t: TestContext, withdrawalId: string): Promise<string[]> {
  const { rows } = await t.pool.query<{ kind: string }>('SELECT kind FROM ledger_transactions WHERE reference = $1 ORDER BY id', [withdrawalId]);
  return rows.map((r) => r.kind);
}

export async function simPayoutCount(t: TestContext, withdrawalId: string): Promise<number> {
  const { rows } = await t.pool.query<{ n: number }>('SELECT count(*)::bigint AS n FROM sim_payouts WHERE withdrawal_id = $1', [withdrawalId]);
  return rows[0]!.n;
}
