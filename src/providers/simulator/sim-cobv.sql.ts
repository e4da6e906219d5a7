import type { Executor } from '../../platform/db.js';

/** The simulated PSP's location of a due-date charge's payload: a capability token naming the charge's txid. */
export async function insertCobvLocation(db: Executor, token: string, txid: string): Promise<void> {
  await db.query('INSERT INTO sim_cobv_locations (token, txid) VALUES ($1, $2)', [token, txid]);
}

/** What the payer-side payload needs beyond the charge: the receiving merchant as its PSP knows it. */
export interface CobvLocationRow {
  charge_id: string;
  pix_key: string;
  city: string;
  kyc_tax_id: string | null;
  kyc_trade_name: string | null;
  kyc_legal_name: string | null;
  kyc_full_name: string | null;
  user_name: string;
  kyc_status: 'PENDING' | 'APPROVED' | 'REJECTED';
}

/** The charge a location token names, with its merchant; undefined for a token no charge has. */
export async function selectCobvLocation(db: Executor, token: string): Promise<CobvLocationRow | undefined> {
  const { rows } = await db.query<CobvLocationRow>(
    `SELECT c.id AS charge_id, m.pix_key, m.city, m.kyc_tax_id, m.kyc_trade_name, m.kyc_legal_name, m.kyc_full_name, m.user_name, m.kyc_status
     FROM sim_cobv_locations l JOIN charges c ON c.txid = l.txid JOIN merchants m ON m.id = c.merchant_id
     WHERE l.token = $1 AND c.due_date IS NOT NULL`,
    [token],
  );
  return rows[0];
}
