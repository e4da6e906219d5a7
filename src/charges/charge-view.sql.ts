import type { Executor } from '../platform/db.js';
import type { AmountBreakdown } from '../providers/port/cobv.port.js';
import type { Attempt, ChargeStatus, SplitEntry } from './charge.schemas.js';
import type { DueRules } from './due-date.rules.js';

/** Everything the API shows of a charge: the row, its customer, its split entries and its latest refund. */
export interface ChargeViewRow {
  id: string;
  created_at: Date;
  amount: number;
  status: ChargeStatus;
  txid: string;
  br_code: string;
  description: string | null;
  checkout_id: string | null;
  /** The subscription it belongs to (docs/contract/subscriptions.md#cycle-charges); null on every other charge. */
  subscription_id: string | null;
  expires_at: Date;
  paid_at: Date | null;
  end2end_id: string | null;
  fee: number;
  net_amount: number;
  /**
   * A due-date charge's terms (`YYYY-MM-DD`, the parser keeps a DATE as text), null on an immediate one; a
   * subscription cycle's charge has its cycle's due date and no other term.
   */
  due_date: string | null;
  days_after_due: number | null;
  due_rules: DueRules | null;
  paid_amount: number | null;
  paid_breakdown: AmountBreakdown | null;
  /** A subscription cycle's failed debit attempts and final failure; null on every other charge. */
  attempts: Attempt[] | null;
  failed_reason: string | null;
  split: SplitEntry[];
  cu_id: string | null;
  cu_name: string | null;
  cu_tax_id: string | null;
  cu_email: string | null;
  cu_phone: string | null;
  r_id: string | null;
  r_amount: number | null;
  r_status: 'PENDING' | 'COMPLETED' | 'FAILED' | null;
  r_reason: 'MERCHANT' | 'DISPUTE' | null;
  r_failed_reason: string | null;
  r_created_at: Date | null;
  r_completed_at: Date | null;
}

// A deleted customer still shows on the charges it was linked to: the charge records who was billed.
// The latest refund is the live one if any (at most one, by index), else the newest failed one.
// A subscription cycle's charge carries its cycle's due date, attempts and failure (subscription_cycles).
const view = (extra = '') => `
  SELECT ${extra}c.id, c.created_at, c.amount, charge_status(c.status, c.expires_at) AS status, c.txid, c.br_code, c.description, c.checkout_id,
    c.subscription_id, c.expires_at, c.paid_at, c.end2end_id, c.fee, c.net_amount, coalesce(c.due_date, sc.due_date) AS due_date, c.days_after_due,
    c.due_rules, c.paid_amount, c.paid_breakdown, sc.attempts, sc.failed_reason,
    coalesce((SELECT json_agg(json_build_object('merchantId', s.recipient_id, 'mode', s.mode, 'value', s.value, 'amount', s.amount)
                ORDER BY s.position) FROM charge_splits s WHERE s.charge_id = c.id), '[]'::json) AS split,
    cu.id AS cu_id, cu.name AS cu_name, cu.tax_id AS cu_tax_id, cu.email AS cu_email, cu.phone AS cu_phone,
    r.id AS r_id, r.amount AS r_amount, r.status AS r_status, r.reason AS r_reason, r.failed_reason AS r_failed_reason,
    r.created_at AS r_created_at, r.completed_at AS r_completed_at
  FROM charges c
  LEFT JOIN customers cu ON cu.id = c.customer_id
  LEFT JOIN subscription_cycles sc ON sc.charge_id = c.id
  LEFT JOIN LATERAL (
    SELECT * FROM refunds WHERE charge_id = c.id ORDER BY (status <> 'FAILED') DESC, created_at DESC, id DESC LIMIT 1
  ) r ON true`;
const VIEW = view();

/** A payment's one read: the charge it names with its merchant, as the API shows it, and whether its end-to-end id paid a charge already. */
export interface PayableRow {
  /** The charge already paid by this end-to-end id, if any (a notification delivered again). */
  e2e_charge_id: string | null;
  /** The charge named; null when there is none (another merchant's, on a merchant's route). */
  charge: PayableCharge | null;
}

/** The view, its merchant, and the fee terms a due-date charge kept from its creation (its fee is on what is paid). */
export type PayableCharge = ChargeViewRow & { merchant_id: string; fee_fixed: number | null; fee_bps: number | null };

const PAYABLE = (key: 'id' | 'txid') => `
  SELECT (SELECT id FROM charges WHERE end2end_id = $3) AS e2e_charge_id, v.*
  FROM (SELECT 1) one LEFT JOIN (${view('c.merchant_id, c.fee_fixed, c.fee_bps, ')} WHERE c.${key} = $1 AND ($2::text IS NULL OR c.merchant_id = $2)) v ON true`;
const PAYABLE_BY_ID = PAYABLE('id');
const PAYABLE_BY_TXID = PAYABLE('txid');

/** By txid (a PSP's notification), or by id scoped to a merchant (the simulator's payer; `merchantId` null on the operator's route). */
export async function selectPayable(
  db: Executor, by: { txid: string } | { id: string; merchantId: string | null }, endToEndId: string,
): Promise<PayableRow> {
  const { rows } = 'txid' in by
    ? await db.query<PayableCharge & { e2e_charge_id: string | null }>(PAYABLE_BY_TXID, [by.txid, null, endToEndId])
    : await db.query<PayableCharge & { e2e_charge_id: string | null }>(PAYABLE_BY_ID, [by.id, by.merchantId, endToEndId]);
  const { e2e_charge_id, ...charge } = rows[0]!;
  return { e2e_charge_id, charge: charge.id === null ? null : charge };
}

export async function selectChargeView(db: Executor, id: string, merchantId: string | null = null): Promise<ChargeViewRow | undefined> {
  const { rows } = await db.query<ChargeViewRow>(`${VIEW} WHERE c.id = $1 AND ($2::text IS NULL OR c.merchant_id = $2)`, [id, merchantId]);
  return rows[0];
}

/** Several charges in one query (a page of objects that each show one), by id; those not found are left out. */
export async function selectChargeViews(db: Executor, ids: string[]): Promise<Map<string, ChargeViewRow>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<ChargeViewRow>(`${VIEW} WHERE c.id = ANY($1::text[])`, [ids]);
  return new Map(rows.map((r) => [r.id, r]));
}

/** Keyset-pagination query of a merchant's charges; `status` filters on the effective status. */
export function listChargesQuery(merchantId: string, f: { id?: string; email?: string; status?: ChargeStatus }) {
  return {
    sql: `${VIEW} WHERE c.merchant_id = $1 AND ($2::text IS NULL OR c.id = $2)
          AND ($3::text IS NULL OR lower(cu.email) = lower($3)) AND ($4::text IS NULL OR charge_status(c.status, c.expires_at) = $4)`,
    params: [merchantId, f.id ?? null, f.email ?? null, f.status ?? null],
    alias: 'c',
  };
}

/** Keyset-pagination query of a subscription's cycle charges (docs/contract/subscriptions.md#subscription-charges). */
export function listCycleChargesQuery(merchantId: string, subscriptionId: string) {
  return {
    sql: `${VIEW} WHERE c.merchant_id = $1 AND c.subscription_id = $2 AND sc.charge_id IS NOT NULL`,
    params: [merchantId, subscriptionId],
    alias: 'c',
  };
}
