import type { Executor } from '../platform/db.js';
import type { CheckoutStatus, Item } from '../checkouts/object/checkout.schemas.js';

/** The store's name and branding, as every public page shows it. */
export interface BrandRow {
  kyc_status: 'PENDING' | 'APPROVED' | 'REJECTED';
  kyc_trade_name: string | null;
  kyc_legal_name: string | null;
  kyc_full_name: string | null;
  user_name: string;
  display_name: string | null;
  primary_color: string | null;
  logo_id: string | null;
}

/** What the pay page shows, in one read: the checkout, its charge, the store and its branding, the payer's first name. */
export interface PayPageRow extends BrandRow {
  id: string;
  status: CheckoutStatus;
  amount: number;
  items: Item[];
  description: string | null;
  br_code: string;
  qr_png: string;
  expires_at: Date;
  paid_at: Date | null;
  /** The paying PIX's end-to-end id, for the payer's receipt. */
  end2end_id: string | null;
  completion_url: string | null;
  /** Where a payer who gives up goes back to: the store's page (a link while unpaid or expired). */
  return_url: string | null;
  payment_link_id: string | null;
  /** Its link asks the payer nothing (a set price, no customer fields): a new checkout starts with one POST. */
  link_asks_nothing: boolean | null;
  first_name: string | null;
}

// Only the first word of the customer's name ever leaves the database for a public page.
export async function selectPayPage(db: Executor, id: string): Promise<PayPageRow | undefined> {
  const { rows } = await db.query<PayPageRow>(
    `SELECT k.id, charge_status(c.status, c.expires_at) AS status, k.amount, k.items, c.description, c.br_code, k.qr_png,
       c.expires_at, c.paid_at, c.end2end_id, k.completion_url, k.return_url, k.payment_link_id,
       pl.amount_min IS NULL AND cardinality(pl.customer_fields) = 0 AS link_asks_nothing, nullif(split_part(btrim(cu.name), ' ', 1), '') AS first_name,
       m.kyc_status, m.kyc_trade_name, m.kyc_legal_name, m.kyc_full_name, m.user_name, b.display_name, b.primary_color, b.logo_id
     FROM checkouts k
     JOIN charges c ON c.id = k.charge_id
     JOIN merchants m ON m.id = k.merchant_id
     LEFT JOIN customers cu ON cu.id = c.customer_id
     LEFT JOIN merchant_branding b ON b.merchant_id = k.merchant_id
     LEFT JOIN payment_links pl ON pl.id = k.payment_link_id AND pl.merchant_id = k.merchant_id
     WHERE k.id = $1`,
    [id],
  );
  return rows[0];
}

export async function selectBrand(db: Executor, merchantId: string): Promise<BrandRow | undefined> {
  const { rows } = await db.query<BrandRow>(
    `SELECT m.kyc_status, m.kyc_trade_name, m.kyc_legal_name, m.kyc_full_name, m.user_name, b.display_name, b.primary_color, b.logo_id
     FROM merchants m LEFT JOIN merchant_branding b ON b.merchant_id = m.id WHERE m.id = $1`,
    [merchantId],
  );
  return rows[0];
}

export interface PayStatusRow {
  status: CheckoutStatus;
  paid_at: Date | null;
  expires_at: Date;
  charge_id: string;
}

/** The cheap read behind GET /pay/{id}/status and every server-sent update: two primary-key lookups. */
export async function selectPayStatus(db: Executor, id: string): Promise<PayStatusRow | undefined> {
  const { rows } = await db.query<PayStatusRow>(
    `SELECT charge_status(c.status, c.expires_at) AS status, c.paid_at, c.expires_at, c.id AS charge_id
     FROM checkouts k JOIN charges c ON c.id = k.charge_id WHERE k.id = $1`,
    [id],
  );
  return rows[0];
}
