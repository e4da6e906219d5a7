import { SqlParams, type Executor, type Tx } from '../platform/db.js';
import type { ChargeStatus, SplitEntry } from './charge.schemas.js';
import type { ChargeViewRow } from './charge-view.sql.js';
import type { DueRules } from './due-date.rules.js';
import type { AmountBreakdown } from '../providers/port/cobv.port.js';
import { deliveriesDue } from '../events/event-fanout.sql.js';
import { postingSql, queryPosting, type Posting } from '../ledger/ledger.js';

/** A charges row plus its effective status (PENDING past expires_at reads EXPIRED). */
export interface ChargeRow {
  id: string;
  merchant_id: string;
  customer_id: string | null;
  /** The checkout that owns the charge (docs/contract/checkouts.md#checkouts); null on every other charge. */
  checkout_id: string | null;
  /** The subscription it belongs to (docs/contract/subscriptions.md#cycle-charges); null on every other charge. */
  subscription_id: string | null;
  amount: number;
  status: ChargeStatus;
  effective_status: ChargeStatus;
  txid: string;
  br_code: string;
  description: string | null;
  fee: number;
  net_amount: number;
  expires_at: Date;
  paid_at: Date | null;
  end2end_id: string | null;
  created_at: Date;
  /** A due-date charge's terms (docs/contract/due-date-charges.md#due-date-charges); null on an immediate charge. */
  due_date: string | null;
  days_after_due: number | null;
  due_rules: DueRules | null;
  /** The merchant's fee terms at creation, for the fee on the amount a due-date charge is paid. */
  fee_fixed: number | null;
  fee_bps: number | null;
  paid_amount: number | null;
}

export interface SplitRow {
  recipient_id: string;
  amount: number;
}

export type NewCharge = Pick<ChargeRow,
  'id' | 'merchant_id' | 'customer_id' | 'checkout_id' | 'subscription_id' | 'amount' | 'txid' | 'br_code' | 'description' | 'fee' | 'net_amount'> & {
  /** A due-date charge: its terms, and its expiresAt (the end of its last day to pay) instead of expires_in. */
  due: { due_date: string; days_after_due: number; due_rules: DueRules; fee_fixed: number; fee_bps: number; expires_at: Date } | null;
} & (
  /** Seconds from creation: expires_at = created_at + expires_in exactly, both from the transaction's now_ms(). */
  | { expires_in: number; expires_at?: never }
  /** A subscription cycle's charge: the end of its last debit day (docs/contract/subscriptions.md#cycle-charges). */
  | { expires_in?: never; expires_at: Date }
);

/** The columns of the view (charge-view.sql.ts) that come from the charges row itself. */
export type InsertedCharge = Pick<ChargeViewRow,
  'id' | 'created_at' | 'amount' | 'status' | 'txid' | 'br_code' | 'description' | 'checkout_id' | 'subscription_id' | 'expires_at' | 'paid_at'
  | 'end2end_id' | 'fee' | 'net_amount' | 'due_date' | 'days_after_due' | 'due_rules' | 'paid_amount' | 'paid_breakdown'>;

/**
 * A charge, its split entries and its CHARGE_CREATED event (`event`: event.sql.ts eventCtes over the
 * `charge` CTE) in one statement — atomic on its own, so a create without a customer to lock needs no
 * BEGIN and COMMIT. Returns the row as the view reads it, so that creation needs no second read (charge.view.ts).
 */
export async function insertCharge(
  db: Executor, c: NewCharge, split: SplitEntry[], event: { render(params: SqlParams): string },
): Promise<InsertedCharge> {
  const p = new SqlParams();
  const id = p.add(c.id);
  const merchant = p.add(c.merchant_id);
  const terms = c.due;
  const at = terms?.expires_at ?? c.expires_at;
  const { rows } = await db.query<InsertedCharge & { due: number }>(
    `WITH charge AS (
       INSERT INTO charges (id, merchant_id, customer_id, amount, txid, br_code, description, fee, net_amount, expires_at, checkout_id, subscription_id${terms ? `,
         due_date, days_after_due, due_rules, fee_fixed, fee_bps` : ''})
       VALUES (${id}, ${merchant}, ${p.add(c.customer_id)}, ${p.add(c.amount)}, ${p.add(c.txid)}, ${p.add(c.br_code)}, ${p.add(c.description)},
         ${p.add(c.fee)}, ${p.add(c.net_amount)}, ${at ? `${p.add(at)}::timestamptz` : `now_ms() + make_interval(secs => ${p.add(c.expires_in)})`},
         ${p.add(c.checkout_id)}, ${p.add(c.subscription_id)}${terms ? `, ${p.add(terms.due_date)}::date, ${p.add(terms.days_after_due)}, ${p.add(JSON.stringify(terms.due_rules))}::jsonb,
         ${p.add(terms.fee_fixed)}, ${p.add(terms.fee_bps)}` : ''})
       RETURNING id, created_at, amount, charge_status(status, expires_at) AS status, txid, br_code, description, checkout_id, subscription_id,
         expires_at, paid_at, end2end_id, fee, net_amount, due_date, days_after_due, due_rules, paid_amount, paid_breakdown),
     splits AS (
       INSERT INTO charge_splits (charge_id, merchant_id, position, recipient_id, mode, value, amount)
       SELECT ${id}, ${merchant}, s.ord - 1, s.recipient, s.mode, s.value, s.amount
       FROM unnest(${p.add(split.map((s) => s.merchantId))}::text[], ${p.add(split.map((s) => s.mode))}::text[],
         ${p.add(split.map((s) => s.value))}::bigint[], ${p.add(split.map((s) => s.amount))}::bigint[]) WITH ORDINALITY AS s(recipient, mode, value, amount, ord)),
     ${event.render(p)}
     SELECT charge.*, (SELECT due FROM fanout) AS due FROM charge`,
    p.values,
  );
  const { due, ...inserted } = rows[0]!;
  deliveriesDue(db, due);
  return inserted;
}

export async function selectSplits(db: Executor, chargeId: string): Promise<SplitRow[]> {
  const { rows } = await db.query<SplitRow>('SELECT recipient_id, amount FROM charge_splits WHERE charge_id = $1 ORDER BY position', [chargeId]);
  return rows;
}

type LockKey = 'id' | 'txid' | 'end2end_id';

/**
 * Locks a charge row. Every command on a charge (payment, expiry, refund, refund result, dispute)
 * takes this lock first, then any refund or dispute row, then ledger accounts (in id order, inside
 * the posting): one order everywhere, so they serialise per charge and never deadlock.
 * `merchantId` scopes merchant-triggered commands; provider notifications and the simulator pass null.
 */
export async function lockCharge(tx: Tx, key: LockKey, value: string, merchantId: string | null = null): Promise<ChargeRow | undefined> {
  const { rows } = await tx.query<ChargeRow>(
    `SELECT *, charge_status(status, expires_at) AS effective_status FROM charges
     WHERE ${key} = $1 AND ($2::text IS NULL OR merchant_id = $2) FOR UPDATE`,
    [value, merchantId],
  );
  return rows[0];
}

/** What a payment writes: who paid, when, by which end-to-end id; the events and the posting it causes. */
export interface PaymentWrite {
  chargeId: string;
  paidAt: Date;
  endToEndId: string;
  payerName: string | null;
  payerTaxId: string | null;
  /** The simulator's payer bank: only a charge PENDING now (not expired meanwhile). */
  onlyPending: boolean;
  /** The events it causes, their data as the read before this statement showed them after the payment. */
  events: { render(params: SqlParams): string };
  posting: Posting;
  /** A due-date charge's payment: what was paid, its parts, and the fee and net on it (docs/contract/due-date-charges.md#payment). */
  due: DueDatePaid | null;
}

/** What a due-date charge's payment records beside PAID: the amount paid, its parts, and the fee and net on it. */
export interface DueDatePaid {
  paidAmount: number;
  paidBreakdown: AmountBreakdown;
  fee: number;
  netAmount: number;
}

/**
 * A payment in ONE statement (docs/performance.md): the charge PAID — if it is still unpaid (PENDING or EXPIRED,
 * no end-to-end id), the only states its read before this statement may have seen for the events to be right —
 * its events with their deliveries, and its ledger posting; nothing at all when it was not (a concurrent
 * payment, or with `onlyPending` an expiry, came first). Returns whether it was paid. Run alone, the
 * statement is its own transaction: a payment is one round trip and one commit.
 */
export async function payCharge(db: Executor, w: PaymentWrite): Promise<boolean> {
  const p = new SqlParams();
  const rows = await queryPosting<{ paid: number; due: number }>(db, w.posting,
    `WITH paid AS (
       UPDATE charges SET status = 'PAID', paid_at = date_trunc('milliseconds', ${p.add(w.paidAt)}::timestamptz), end2end_id = ${p.add(w.endToEndId)},
         payer_name = ${p.add(w.payerName)}, payer_tax_id = ${p.add(w.payerTaxId)}${w.due ? `, paid_amount = ${p.add(w.due.paidAmount)},
         paid_breakdown = ${p.add(JSON.stringify(w.due.paidBreakdown))}::jsonb, fee = ${p.add(w.due.fee)}, net_amount = ${p.add(w.due.netAmount)}` : ''}
       WHERE id = ${p.add(w.chargeId)} AND end2end_id IS NULL AND status IN ('PENDING', 'EXPIRED')
         AND (NOT ${p.add(w.onlyPending)}::boolean OR charge_status(status, expires_at) = 'PENDING')
       RETURNING id),
     ${w.events.render(p)},
     posting AS (${postingSql(w.posting, p, 'paid')})
     SELECT (SELECT count(*) FROM paid)::int AS paid, (SELECT due FROM fanout) AS due, (SELECT count(*) FROM posting)::int AS posted`,
    p.values,
  );
  if (rows[0]!.paid === 0) return false;
  deliveriesDue(db, rows[0]!.due);
  return true;
}

export async function setChargeStatus(tx: Tx, id: string, status: ChargeStatus): Promise<void> {
  await tx.query('UPDATE charges SET status = $2 WHERE id = $1', [id, status]);
}

/**
 * The expiry jobs of PENDING charges expiring within `horizonMs` that have none queued, due at
 * expires_at, in one statement (charge-expiry.service.ts); a charge overdue by a minute gets its job again
 * even if one exists, since that one may be held by a dead worker.
 */
export async function enqueueDueExpiries(db: Executor, o: { task: string; keyPrefix: string; horizonMs: number }): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1::text, json_build_object('chargeId', c.id), run_at => c.expires_at,
       job_key => $2 || c.id, max_attempts => 25)
     FROM charges c
     WHERE c.status = 'PENDING' AND c.expires_at <= now() + $3::int * interval '1 millisecond'
       AND (c.expires_at <= now() - interval '1 minute'
            OR NOT EXISTS (SELECT 1 FROM graphile_worker.jobs j WHERE j.key = $2 || c.id))`,
    [o.task, o.keyPrefix, o.horizonMs],
  );
}
