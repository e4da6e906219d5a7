import type { EventType } from '../events/events.js';
import type { Executor } from '../platform/db.js';

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: EventType;
  attempt: number;
  status_code: number | null;
  success: boolean;
  error: string | null;
  duration_ms: number;
  created_at: Date;
}

/** What one delivery attempt needs: where, with which secret, which bytes, and whether it already ran. */
export interface DeliveryTarget {
  merchant_id: string;
  url: string;
  secret_encrypted: string | null;
  event_type: EventType;
  body: string;
  recorded: boolean;
}

export async function selectDeliveryTarget(
  db: Executor,
  job: { eventId: string; endpointId: string; attempt: number },
): Promise<DeliveryTarget | undefined> {
  const { rows } = await db.query<DeliveryTarget>(
    `SELECT w.merchant_id, w.url, w.secret_encrypted, e.type AS event_type, e.body,
            EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = w.id AND d.event_id = e.id AND d.attempt = $3) AS recorded
     FROM webhook_endpoints w JOIN events e ON e.id = $2 AND e.merchant_id = w.merchant_id
     WHERE w.id = $1`,
    [job.endpointId, job.eventId, job.attempt],
  );
  return rows[0];
}

/** Returns false when this attempt was already recorded (a second run of the same job). */
export async function insertDelivery(
  db: Executor,
  d: {
    id: string; merchantId: string; endpointId: string; eventId: string; eventType: EventType; attempt: number;
    statusCode: number | null; success: boolean; error: string | null; durationMs: number;
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO webhook_deliveries
       (id, merchant_id, endpoint_id, event_id, event_type, attempt, status_code, success, error, duration_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT ON CONSTRAINT webhook_deliveries_attempt DO NOTHING`,
    [d.id, d.merchantId, d.endpointId, d.eventId, d.eventType, d.attempt, d.statusCode, d.success, d.error, d.durationMs],
  );
  return rowCount === 1;
}

/** keysetPage query: $1 = endpoint id, $2 = merchant id. */
export const LIST_DELIVERIES_SQL =
  `SELECT id, event_id, event_type, attempt, status_code, success, error, duration_ms, created_at
   FROM webhook_deliveries WHERE endpoint_id = $1 AND merchant_id = $2`;
