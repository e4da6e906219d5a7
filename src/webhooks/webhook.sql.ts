import type { EventType } from '../events/event.schemas.js';
import type { Executor } from '../platform/db.js';

export interface EndpointRow {
  id: string;
  merchant_id: string;
  url: string;
  events: EventType[];
  secret_encrypted: string | null;
  secret_previous_encrypted: string | null;
  secret_previous_expires_at: Date | null;
  created_at: Date;
}

export const ENDPOINT_URL_CONSTRAINT = 'webhook_endpoints_merchant_url';
const CALLBACK_EVENTS: EventType[] = ['WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED'];

/** Throws a unique violation on ENDPOINT_URL_CONSTRAINT when the merchant already has that URL. */
export async function insertEndpoint(
  db: Executor,
  e: { id: string; merchantId: string; url: string; events: EventType[]; secretEncrypted: string },
): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRow>(
    'INSERT INTO webhook_endpoints (id, merchant_id, url, events, secret_encrypted) VALUES ($1, $2, $3, $4, $5) RETURNING *',
    [e.id, e.merchantId, e.url, e.events, e.secretEncrypted],
  );
  return rows[0]!;
}

/**
 * A clientCallbackUrl's endpoint: created subscribed to the two withdrawal events (its secret is drawn
 * at first delivery), or the existing endpoint for that URL gains whichever of them it lacks.
 * ON CONFLICT makes concurrent withdrawals with the same new URL converge on one endpoint.
 */
export async function upsertCallbackEndpointRow(db: Executor, e: { id: string; merchantId: string; url: string }): Promise<void> {
  await db.query(
    `INSERT INTO webhook_endpoints (id, merchant_id, url, events) VALUES ($1, $2, $3, $4)
     ON CONFLICT ON CONSTRAINT ${ENDPOINT_URL_CONSTRAINT} DO UPDATE
       SET events = webhook_endpoints.events || ARRAY(SELECT x FROM unnest(EXCLUDED.events) AS x WHERE x <> ALL (webhook_endpoints.events))
       WHERE NOT EXCLUDED.events <@ webhook_endpoints.events`,
    [e.id, e.merchantId, e.url, CALLBACK_EVENTS],
  );
}

export async function selectEndpoint(db: Executor, merchantId: string, id: string): Promise<EndpointRow | undefined> {
  const { rows } = await db.query<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = $1 AND merchant_id = $2', [id, merchantId]);
  return rows[0];
}

export async function deleteEndpointRow(db: Executor, merchantId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM webhook_endpoints WHERE id = $1 AND merchant_id = $2', [id, merchantId]);
  return rowCount === 1;
}

/** keysetPage query: $1 = merchant id. */
export const LIST_ENDPOINTS_SQL = 'SELECT id, merchant_id, url, events, created_at FROM webhook_endpoints WHERE merchant_id = $1';

/** Sets the secret of an endpoint that has none yet; the first writer wins, everyone reads its value back. */
export async function fillMissingSecret(db: Executor, id: string, secretEncrypted: string): Promise<string | undefined> {
  const { rows } = await db.query<{ secret_encrypted: string }>(
    `UPDATE webhook_endpoints SET secret_encrypted = coalesce(secret_encrypted, $2) WHERE id = $1 RETURNING secret_encrypted`,
    [id, secretEncrypted],
  );
  return rows[0]?.secret_encrypted;
}

