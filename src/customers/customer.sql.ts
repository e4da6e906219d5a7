import type { Executor } from '../platform/db.js';

export interface CustomerRow {
  id: string;
  merchant_id: string;
  email: string;
  name: string | null;
  tax_id: string | null;
  phone: string | null;
  created_at: Date;
}

/** The partial unique index behind "one active customer per taxId" (CONFLICT). */
export const ACTIVE_TAX_ID_INDEX = 'customers_active_tax_id';

const COLUMNS = 'id, merchant_id, email, name, tax_id, phone, created_at';

export async function insertCustomer(db: Executor, row: Omit<CustomerRow, 'created_at'>): Promise<CustomerRow> {
  const { rows } = await db.query<CustomerRow>(
    `INSERT INTO customers (id, merchant_id, email, name, tax_id, phone) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [row.id, row.merchant_id, row.email, row.name, row.tax_id, row.phone],
  );
  return rows[0]!;
}

/** An active (not deleted) customer of the merchant; `forShare` holds off a concurrent delete until commit. */
export async function selectActiveCustomer(db: Executor, merchantId: string, id: string, forShare = false): Promise<CustomerRow | undefined> {
  const { rows } = await db.query<CustomerRow>(
    `SELECT ${COLUMNS} FROM customers WHERE id = $1 AND merchant_id = $2 AND deleted_at IS NULL${forShare ? ' FOR SHARE' : ''}`,
    [id, merchantId],
  );
  return rows[0];
}

/** A customer whatever its state: a subscription's payer stays its payer after the customer is deleted. */
export async function selectCustomerRecord(db: Executor, merchantId: string, id: string): Promise<CustomerRow | undefined> {
  const { rows } = await db.query<CustomerRow>(`SELECT ${COLUMNS} FROM customers WHERE id = $1 AND merchant_id = $2`, [id, merchantId]);
  return rows[0];
}

export async function softDeleteCustomer(db: Executor, merchantId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE customers SET deleted_at = now_ms() WHERE id = $1 AND merchant_id = $2 AND deleted_at IS NULL',
    [id, merchantId],
  );
  return rowCount === 1;
}

/** Keyset-pagination query of a merchant's active customers; absent filters match everything. */
export function listCustomersQuery(merchantId: string, f: { id?: string; email?: string; taxId?: string }) {
  return {
    sql: `SELECT ${COLUMNS} FROM customers WHERE merchant_id = $1 AND deleted_at IS NULL
          AND ($2::text IS NULL OR id = $2) AND ($3::text IS NULL OR lower(email) = lower($3)) AND ($4::text IS NULL OR tax_id = $4)`,
    params: [merchantId, f.id ?? null, f.email ?? null, f.taxId ?? null],
  };
}

/** The active customer with this tax id, else the newest active one with this e-mail (a payer of a payment link). */
export async function selectPayerCustomer(db: Executor, merchantId: string, p: { taxId: string | null; email: string | null }): Promise<CustomerRow | undefined> {
  const { rows } = await db.query<CustomerRow>(
    `SELECT ${COLUMNS} FROM customers WHERE merchant_id = $1 AND deleted_at IS NULL
       AND (tax_id = $2 OR ($2::text IS NULL AND lower(email) = lower($3)))
     ORDER BY created_at DESC, id DESC LIMIT 1`,
    [merchantId, p.taxId, p.email],
  );
  return rows[0];
}
