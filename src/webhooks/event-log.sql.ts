import type { Executor } from '../platform/db.js';
import type { KeysetQuery } from '../platform/pagination.js';
import type { AnyEventType } from '../events/event.schemas.js';

export type DeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

export interface EventRow {
  id: string;
  type: AnyEventType;
  /** The exact bytes every delivery sent; its `data` is what /events shows. */
  body: string;
  pending: number;
  succeeded: number;
  failed: number;
  created_at: Date;
}

const COLUMNS = 'id, type, body, pending, succeeded, failed, created_at';

// Each predicate is word for word the one of its partial index (migration 0010), so the planner uses it.
const STATUS: Record<DeliveryStatus, string> = {
  PENDING: 'pending > 0',
  FAILED: 'failed > 0',
  SUCCEEDED: 'succeeded > 0 AND pending = 0 AND failed = 0',
};

export function listEventsQuery(merchantId: string, f: { type?: AnyEventType; deliveryStatus?: DeliveryStatus }): KeysetQuery {
  const params: unknown[] = [merchantId];
  let sql = `SELECT ${COLUMNS} FROM events WHERE merchant_id = $1`;
  if (f.type !== undefined) sql += ` AND type = $${params.push(f.type)}`;
  if (f.deliveryStatus !== undefined) sql += ` AND ${STATUS[f.deliveryStatus]}`;
  return { sql, params };
}

export async function selectEvent(db: Executor, merchantId: string, id: string): Promise<EventRow | undefined> {
  const { rows } = await db.query<EventRow>(`SELECT ${COLUMNS} FROM events WHERE id = $1 AND merchant_id = $2`, [id, merchantId]);
  return rows[0];
}
