import { AppError } from '../platform/errors.js';
import type { Executor, SqlParams, Tx } from '../platform/db.js';
import client from 'prom-client';

const ledgerPostings = new client.Counter({
  name: 'pixgate_ledger_postings_total',
  help: 'Balanced ledger postings written, by kind (counted when written inside its transaction)',
  labelNames: ['kind'] as const,
});

/** The three balances every merchant has (docs/contract/merchants.md#balance). */
export type MerchantAccountKind = 'available' | 'pending' | 'blocked';
/** Platform accounts: fees earned, money held at the PSP (the asset side), refunds on their way out. */
export type PlatformAccount = 'platform:fee_revenue' | 'platform:psp_clearing' | 'platform:payouts_in_transit';

export const merchantAccount = (merchantId: string, kind: MerchantAccountKind) => `${merchantId}:${kind}`;
export const FEE_REVENUE: PlatformAccount = 'platform:fee_revenue';
export const PSP_CLEARING: PlatformAccount = 'platform:psp_clearing';
export const PAYOUTS_IN_TRANSIT: PlatformAccount = 'platform:payouts_in_transit';

export interface Entry {
  account: string;
  /** Signed cents: positive adds to the account's balance. */
  amount: number;
}

export interface Posting {
  /** What moved the money, e.g. CHARGE_PAYMENT, REFUND, WITHDRAWAL_RESERVE. */
  kind: string;
  /** The business object the posting belongs to (chg_, ref_, wd_, dsp_ id). */
  reference: string;
  entries: Entry[];
}

export async function createMerchantAccounts(tx: Tx, merchantId: string): Promise<void> {
  await tx.query(
    `INSERT INTO ledger_accounts (id, merchant_id, kind)
     SELECT $1 || ':' || lower(k), $1, k FROM unnest(ARRAY['AVAILABLE', 'PENDING', 'BLOCKED']) k`,
    [merchantId],
  );
}

function postedEntries(posting: Posting): Entry[] {
  const entries = posting.entries.filter((e) => e.amount !== 0);
  for (const e of entries) if (!Number.isSafeInteger(e.amount)) throw new Error(`ledger amount ${e.amount} is not integer cents`);
  return entries;
}

/** A posting refused for a merchant balance that would go negative (SQLSTATE PX001): INSUFFICIENT_BALANCE naming it. */
function postingError(err: unknown): unknown {
  const e = err as { code?: string; detail?: string };
  return e.code === 'PX001' ? new AppError('INSUFFICIENT_BALANCE', `Insufficient available balance for merchant ${e.detail}`) : err;
}

const countPosting = (kind: string): void => void ledgerPostings.inc({ kind });

/**
 * Writes one balanced set of entries and moves the merchant balances in the caller's transaction.
 * Zero entries are dropped. A merchant balance that would go negative aborts the whole posting with
 * INSUFFICIENT_BALANCE naming that merchant (the CHECK constraint backs this up). A credit to a balance
 * row another transaction holds does not wait: it is left pending on it (migration 0006).
 */
export async function post(tx: Tx, posting: Posting): Promise<number> {
  const entries = postedEntries(posting);
  try {
    const { rows } = await tx.query<{ id: number }>('SELECT ledger_post($1, $2, $3::text[], $4::bigint[]) AS id', [
      posting.kind,
      posting.reference,
      entries.map((e) => e.account),
      entries.map((e) => e.amount),
    ]);
    countPosting(posting.kind);
    return rows[0]!.id;
  } catch (err) {
    throw postingError(err);
  }
}

/**
 * The same posting as a query to put in a statement that does more (a payment in one statement,
 * charges/charge.sql.ts): ledger_post once per row of `from`, so nothing is posted when `from` is empty.
 * The statement runs through queryPosting.
 */
export function postingSql(posting: Posting, params: SqlParams, from: string): string {
  const entries = postedEntries(posting);
  return `SELECT ledger_post(${params.add(posting.kind)}, ${params.add(posting.reference)}, ${params.add(entries.map((e) => e.account))}::text[],
    ${params.add(entries.map((e) => e.amount))}::bigint[]) AS id FROM ${from}`;
}

/**
 * Runs a statement holding postingSql's query as a CTE whose row count it selects as `posted`: a refused
 * posting becomes INSUFFICIENT_BALANCE as with post, and a posting written is counted as post counts it.
 */
export async function queryPosting<R>(db: Executor, posting: Posting, text: string, values: unknown[]): Promise<(R & { posted: number })[]> {
  const { rows } = await db.query<R & { posted: number }>(text, values).catch((err: unknown) => { throw postingError(err); });
  if (rows.some((r) => r.posted > 0)) countPosting(posting.kind);
  return rows;
}

export interface Balance {
  available: number;
  pending: number;
  blocked: number;
}

// A merchant balance is its row plus the credits still pending on it (migration 0006), read together.
const WITH_PENDING = 'a.balance + coalesce((SELECT sum(p.amount) FROM ledger_pending_credits p WHERE p.account_id = a.id), 0)';

const BALANCE_FIELD: Record<string, keyof Balance> = { AVAILABLE: 'available', PENDING: 'pending', BLOCKED: 'blocked' };

/** The balances of several merchants in one query (a page of the operator's merchant list). */
export async function getBalances(db: Executor, merchantIds: string[]): Promise<Map<string, Balance>> {
  const { rows } = await db.query<{ merchant_id: string; kind: string; balance: number }>(
    `SELECT a.merchant_id, a.kind, (${WITH_PENDING})::bigint AS balance FROM ledger_accounts a WHERE a.merchant_id = ANY($1::text[])`,
    [merchantIds],
  );
  const balances = new Map<string, Balance>(merchantIds.map((id) => [id, { available: 0, pending: 0, blocked: 0 }]));
  for (const r of rows) {
    const field = BALANCE_FIELD[r.kind];
    if (field) balances.get(r.merchant_id)![field] = r.balance;
  }
  return balances;
}

export const getBalance = async (db: Executor, merchantId: string): Promise<Balance> => (await getBalances(db, [merchantId])).get(merchantId)!;

/**
 * Locks a merchant's account row and reads its balance: for rules that depend on the current balance.
 * Credits that commit after the read can only raise it, so a check made on it stays true. NO KEY UPDATE,
 * as ledger_post takes it: it excludes other postings but not the foreign key checks of pending credits.
 */
export async function lockBalance(tx: Tx, merchantId: string, kind: MerchantAccountKind): Promise<number> {
  const account = merchantAccount(merchantId, kind);
  // Lock first, read after: a statement that waited for the lock re-reads the row as committed by the
  // holder but keeps its older snapshot for other tables, so it would still see the pending credits the
  // holder folded into the row and count them twice. The second statement's fresh snapshot cannot.
  await tx.query('SELECT 1 FROM ledger_accounts WHERE id = $1 FOR NO KEY UPDATE', [account]);
  const { rows } = await tx.query<{ balance: number }>(`SELECT (${WITH_PENDING})::bigint AS balance FROM ledger_accounts a WHERE a.id = $1`, [account]);
  return rows[0]?.balance ?? 0;
}
