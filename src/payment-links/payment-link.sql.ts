import type { Executor } from '../platform/db.js';
import type { Item } from '../checkouts/object/checkout.schemas.js';
import type { SplitEntry } from '../charges/charge.schemas.js';
import type { CustomerField } from './payment-link.schemas.js';

export interface PaymentLinkRow {
  id: string;
  merchant_id: string;
  name: string;
  active: boolean;
  items: Item[] | null;
  amount: number | null;
  amount_min: number | null;
  amount_max: number | null;
  description: string | null;
  customer_fields: CustomerField[];
  max_payments: number | null;
  active_until: Date | null;
  completion_url: string | null;
  split: Array<Pick<SplitEntry, 'merchantId' | 'mode' | 'value'>>;
  checkout_expires_in: number;
  created_at: Date;
}

export interface PaymentLinkViewRow extends PaymentLinkRow {
  payments: number;
  amount_received: number;
}

// A paid checkout is one whose charge has a paidAt: PAID, REFUNDED or DISPUTED (docs/contract/checkouts.md#payment-links).
// Counted on read: exact under any concurrency, and the payment path writes nothing for it. The checkouts are
// read under the link's own merchant_id, as every tenant read is (test/fleet/merchant-scope.test.ts).
const VIEW = `
  SELECT l.*, n.payments, n.amount_received FROM payment_links l
  CROSS JOIN LATERAL (
    SELECT count(*) AS payments, coalesce(sum(k.amount), 0) AS amount_received
    FROM checkouts k JOIN charges c ON c.id = k.charge_id
    WHERE k.payment_link_id = l.id AND k.merchant_id = l.merchant_id AND c.paid_at IS NOT NULL) n`;

export async function insertPaymentLink(db: Executor, l: Omit<PaymentLinkRow, 'created_at' | 'active'>): Promise<void> {
  await db.query(
    `INSERT INTO payment_links (id, merchant_id, name, items, amount, amount_min, amount_max, description, customer_fields,
       max_payments, active_until, completion_url, split, checkout_expires_in)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [l.id, l.merchant_id, l.name, l.items && JSON.stringify(l.items), l.amount, l.amount_min, l.amount_max, l.description,
      l.customer_fields, l.max_payments, l.active_until, l.completion_url, JSON.stringify(l.split), l.checkout_expires_in],
  );
}

/** `merchantId` null: the public pages, which know only the link id. */
export async function selectPaymentLinkView(db: Executor, id: string, merchantId: string | null): Promise<PaymentLinkViewRow | undefined> {
  const { rows } = await db.query<PaymentLinkViewRow>(`${VIEW} WHERE l.id = $1 AND ($2::text IS NULL OR l.merchant_id = $2)`, [id, merchantId]);
  return rows[0];
}

export async function setPaymentLinkActive(db: Executor, id: string, merchantId: string, active: boolean): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE payment_links SET active = $3 WHERE id = $1 AND merchant_id = $2', [id, merchantId, active]);
  return rowCount === 1;
}

export function listPaymentLinksQuery(merchantId: string, f: { status?: 'ACTIVE' | 'INACTIVE' }) {
  return {
    sql: `${VIEW} WHERE l.merchant_id = $1 AND ($2::boolean IS NULL OR l.active = $2)`,
    params: [merchantId, f.status === undefined ? null : f.status === 'ACTIVE'],
    alias: 'l',
  };
}

/** The link's payments: its checkouts that were paid (PAID, REFUNDED or DISPUTED since), docs/contract/checkouts.md#max-payments. */
export async function selectLinkPayments(db: Executor, id: string, merchantId: string): Promise<number> {
  const { rows } = await db.query<{ paid: number }>(
    `SELECT count(*)::int AS paid FROM checkouts k JOIN charges c ON c.id = k.charge_id
     WHERE k.payment_link_id = $1 AND k.merchant_id = $2 AND c.paid_at IS NOT NULL`,
    [id, merchantId],
  );
  return rows[0]!.paid;
}

/** One more checkout from `address` for the link in this clock minute: the count so far and the seconds left in the window. */
export async function hitPaymentLink(db: Executor, id: string, address: string): Promise<{ hits: number; retry_after: number }> {
  const { rows } = await db.query<{ hits: number; retry_after: number }>(
    `INSERT INTO payment_link_hits (payment_link_id, address, window_start, hits) VALUES ($1, $2, date_trunc('minute', now()), 1)
     ON CONFLICT (payment_link_id, address, window_start) DO UPDATE SET hits = payment_link_hits.hits + 1
     RETURNING hits, ceil(extract(epoch FROM window_start + interval '1 minute' - now()))::int AS retry_after`,
    [id, address],
  );
  return rows[0]!;
}

export async function deleteOldLinkHits(db: Executor, batch: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM payment_link_hits WHERE ctid IN (
       SELECT ctid FROM payment_link_hits WHERE window_start < now() - interval '2 minutes' LIMIT $1)`,
    [batch],
  );
  return rowCount ?? 0;
}
