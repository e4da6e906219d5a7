import type { Executor } from '../platform/db.js';

export interface MerchantRow {
  id: string;
  user_name: string;
  email: string;
  kyc_status: 'PENDING' | 'APPROVED' | 'REJECTED';
  kyc_trade_name: string | null;
  kyc_legal_name: string | null;
  kyc_full_name: string | null;
  kyc_tax_id: string | null;
  pix_key: string | null;
  pix_key_type: string | null;
  city: string;
  min_ticket: number;
  max_ticket: number;
  max_withdrawal: number;
  withdrawals_enabled: boolean;
  charge_fee_fixed: number;
  charge_fee_bps: number;
  withdrawal_fee_fixed: number;
  suspended: boolean;
  created_at: Date;
}

/** Writable columns, by their SQL names. */
export type MerchantColumns = Partial<Omit<MerchantRow, 'id' | 'created_at'>>;

const WRITABLE: ReadonlySet<string> = new Set([
  'user_name', 'email', 'kyc_status', 'kyc_trade_name', 'kyc_legal_name', 'kyc_full_name', 'kyc_tax_id', 'pix_key',
  'pix_key_type', 'city', 'min_ticket', 'max_ticket', 'max_withdrawal', 'withdrawals_enabled', 'charge_fee_fixed',
  'charge_fee_bps', 'withdrawal_fee_fixed', 'suspended',
]);

function columns(values: MerchantColumns): [string[], unknown[]] {
  const entries = Object.entries(values).filter(([k, v]) => WRITABLE.has(k) && v !== undefined);
  return [entries.map(([k]) => k), entries.map(([, v]) => v)];
}

export async function insertMerchant(db: Executor, id: string, values: MerchantColumns): Promise<MerchantRow> {
  const [cols, vals] = columns(values);
  const { rows } = await db.query<MerchantRow>(
    `INSERT INTO merchants (id${cols.map((c) => ', ' + c).join('')}) VALUES ($1${cols.map((_, i) => `, $${i + 2}`).join('')}) RETURNING *`,
    [id, ...vals],
  );
  return rows[0]!;
}

/** Undefined when there is nothing to change (the caller holds the row already). */
export async function updateMerchant(db: Executor, id: string, values: MerchantColumns): Promise<MerchantRow | undefined> {
  const [cols, vals] = columns(values);
  if (cols.length === 0) return undefined;
  const { rows } = await db.query<MerchantRow>(
    `UPDATE merchants SET ${cols.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1 RETURNING *`,
    [id, ...vals],
  );
  return rows[0];
}

export async function selectMerchant(db: Executor, id: string, forUpdate = false): Promise<MerchantRow | undefined> {
  const { rows } = await db.query<MerchantRow>(`SELECT * FROM merchants WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

export async function selectMerchants(db: Executor, ids: string[]): Promise<Map<string, MerchantRow>> {
  const { rows } = await db.query<MerchantRow>('SELECT * FROM merchants WHERE id = ANY($1::text[])', [ids]);
  return new Map(rows.map((m) => [m.id, m]));
}

export async function countMerchants(db: Executor): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::bigint AS n FROM merchants');
  return rows[0]!.n;
}

export const LIST_MERCHANTS_SQL = 'SELECT * FROM merchants WHERE true';

/** An advisory lock held until the transaction ends: concurrent first starts queue on it (the demo seed). */
export async function lockTransactionWide(tx: Executor, lockId: number): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [lockId]);
}
