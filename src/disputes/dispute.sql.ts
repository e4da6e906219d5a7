import type { Executor, Tx } from '../platform/db.js';

export interface DisputeRow {
  id: string;
  merchant_id: string;
  charge_id: string;
  status: 'OPEN' | 'RESOLVED';
  outcome: 'ACCEPTED' | 'REJECTED' | null;
  blocked_amount: number;
}

const COLUMNS = 'id, merchant_id, charge_id, status, outcome, blocked_amount';

export async function insertDispute(tx: Tx, d: Pick<DisputeRow, 'id' | 'merchant_id' | 'charge_id' | 'blocked_amount'>): Promise<DisputeRow> {
  const { rows } = await tx.query<DisputeRow>(
    `INSERT INTO disputes (id, merchant_id, charge_id, blocked_amount) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [d.id, d.merchant_id, d.charge_id, d.blocked_amount],
  );
  return rows[0]!;
}

/** `forUpdate` locks the row: only after the charge's lock (see lockCharge), never before it. */
export async function selectDispute(db: Executor, id: string, forUpdate = false): Promise<DisputeRow | undefined> {
  const { rows } = await db.query<DisputeRow>(`SELECT ${COLUMNS} FROM disputes WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

export async function resolveDisputeRow(tx: Tx, id: string, outcome: 'ACCEPTED' | 'REJECTED'): Promise<DisputeRow> {
  const { rows } = await tx.query<DisputeRow>(
    `UPDATE disputes SET status = 'RESOLVED', outcome = $2, resolved_at = now_ms() WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, outcome],
  );
  return rows[0]!;
}
