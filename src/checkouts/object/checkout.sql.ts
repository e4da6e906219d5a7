import type { Executor, Tx } from '../../platform/db.js';
import type { CheckoutStatus, Item } from './checkout.schemas.js';

/** Everything the API shows of a checkout: its row, and its charge's status, code, times and customer. */
export interface CheckoutViewRow {
  id: string;
  merchant_id: string;
  created_at: Date;
  status: CheckoutStatus;
  amount: number;
  items: Item[];
  description: string | null;
  external_id: string | null;
  metadata: Record<string, string> | null;
  return_url: string | null;
  completion_url: string | null;
  payment_link_id: string | null;
  charge_id: string;
  br_code: string;
  expires_at: Date;
  paid_at: Date | null;
  cu_id: string | null;
  cu_name: string | null;
  cu_tax_id: string | null;
  cu_email: string | null;
  cu_phone: string | null;
}

export interface NewCheckout {
  id: string;
  merchant_id: string;
  charge_id: string;
  amount: number;
  items: Item[];
  external_id: string | null;
  metadata: Record<string, string> | null;
  return_url: string | null;
  completion_url: string | null;
  payment_link_id: string | null;
  qr_png: string;
}

// Its status, code and times are its charge's (docs/contract/checkouts.md#checkouts): read through, never copied.
const VIEW = `
  SELECT k.id, k.merchant_id, k.created_at, charge_status(c.status, c.expires_at) AS status, k.amount, k.items, c.description,
    k.external_id, k.metadata, k.return_url, k.completion_url, k.payment_link_id, k.charge_id, c.br_code, c.expires_at, c.paid_at,
    cu.id AS cu_id, cu.name AS cu_name, cu.tax_id AS cu_tax_id, cu.email AS cu_email, cu.phone AS cu_phone
  FROM checkouts k
  JOIN charges c ON c.id = k.charge_id
  LEFT JOIN customers cu ON cu.id = c.customer_id`;

/**
 * Written in the transaction of its charge, after it (the charge's checkout_id is checked at commit); both
 * take the transaction's now_ms(), so the checkout's createdAt is its charge's.
 */
export async function insertCheckout(tx: Tx, k: NewCheckout): Promise<void> {
  await tx.query(
    `INSERT INTO checkouts (id, merchant_id, charge_id, amount, items, external_id, metadata, return_url, completion_url, payment_link_id, qr_png)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [k.id, k.merchant_id, k.charge_id, k.amount, JSON.stringify(k.items), k.external_id, k.metadata && JSON.stringify(k.metadata),
      k.return_url, k.completion_url, k.payment_link_id, k.qr_png],
  );
}

export async function selectCheckoutView(db: Executor, id: string, merchantId: string | null): Promise<CheckoutViewRow | undefined> {
  const { rows } = await db.query<CheckoutViewRow>(`${VIEW} WHERE k.id = $1 AND ($2::text IS NULL OR k.merchant_id = $2)`, [id, merchantId]);
  return rows[0];
}

export async function selectCheckoutChargeId(db: Executor, id: string, merchantId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ charge_id: string }>('SELECT charge_id FROM checkouts WHERE id = $1 AND merchant_id = $2', [id, merchantId]);
  return rows[0]?.charge_id;
}

/** Keyset-pagination query of a merchant's checkouts; `status` filters on the charge's effective status. */
export function listCheckoutsQuery(merchantId: string, f: { status?: CheckoutStatus; externalId?: string; paymentLinkId?: string }) {
  return {
    sql: `${VIEW} WHERE k.merchant_id = $1 AND ($2::text IS NULL OR charge_status(c.status, c.expires_at) = $2)
          AND ($3::text IS NULL OR k.external_id = $3) AND ($4::text IS NULL OR k.payment_link_id = $4)`,
    params: [merchantId, f.status ?? null, f.externalId ?? null, f.paymentLinkId ?? null],
    alias: 'k',
  };
}
