import { EVENT_TYPES, type AnyEventType, type EventType } from '../events/event.schemas.js';
import { isUniqueViolation, withTransaction, type TransactionHook } from '../platform/db.js';
import { AppError, notFound, validationError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { keysetPage, type Page, type PageRequest } from '../platform/pagination.js';
import type { Runtime } from '../runtime.js';
import { LIST_DELIVERIES_SQL, type DeliveryRow } from './delivery.sql.js';
import { newWebhookSecret, openWebhookSecret, sealWebhookSecret } from './endpoint-secret.crypto.js';
import { registrableUrl } from './registrable-url.rules.js';
import { countEndpointsLocked } from './webhook-ops.sql.js';
import type { Resolver } from './webhook-url.rules.js';
import {
  deleteEndpointRow, ENDPOINT_URL_CONSTRAINT, insertEndpoint, LIST_ENDPOINTS_SQL, selectEndpoint, type EndpointRow,
} from './webhook.sql.js';

export interface Endpoint {
  id: string;
  url: string;
  events: EventType[];
  createdAt: string;
}
export interface CreatedEndpoint extends Endpoint {
  secret: string;
}
export interface Delivery {
  id: string;
  eventId: string;
  event: AnyEventType;
  attempt: number;
  statusCode: number | null;
  success: boolean;
  error: string | null;
  durationMs: number;
  manual: boolean;
  createdAt: string;
}

const NAMES: ReadonlySet<unknown> = new Set(EVENT_TYPES);
const endpointNotFound = () => notFound('Webhook endpoint');

const endpointView = (r: Pick<EndpointRow, 'id' | 'url' | 'events' | 'created_at'>): Endpoint => ({
  id: r.id, url: r.url, events: r.events, createdAt: r.created_at.toISOString(),
});

export const deliveryView = (r: DeliveryRow): Delivery => ({
  id: r.id, eventId: r.event_id, event: r.event_type, attempt: r.attempt, statusCode: r.status_code,
  success: r.success, error: r.error, durationMs: r.duration_ms, manual: r.manual, createdAt: r.created_at.toISOString(),
});

/** docs/contract/webhooks.md#webhook-limits; counted under a lock per merchant (countEndpointsLocked). */
export const MAX_ENDPOINTS = 20;

/** The schema bounds the list (1 to 8, distinct); the names are checked here so the message names `events`. */
function eventNames(events: unknown[]): EventType[] {
  if (!events.every((e) => NAMES.has(e))) throw validationError('events', `each must be one of ${EVENT_TYPES.join(', ')}`);
  return events as EventType[];
}

export async function createEndpoint(
  rt: Runtime,
  merchantId: string,
  input: { url: string; events: unknown[] },
  hook?: TransactionHook<CreatedEndpoint>,
  opts: { resolver?: Resolver } = {},
): Promise<CreatedEndpoint> {
  const events = eventNames(input.events);
  // Resolved before the transaction opens: a slow DNS answer must not hold a connection.
  const url = await registrableUrl(input.url, { allowPrivate: rt.config.webhookAllowPrivate, resolver: opts.resolver });
  const secret = newWebhookSecret();
  return withTransaction(rt.pool, async (tx) => {
    if ((await countEndpointsLocked(tx, merchantId)) >= MAX_ENDPOINTS) throw validationError('url', `at most ${MAX_ENDPOINTS} webhook endpoints`);
    try {
      const row = await insertEndpoint(tx, {
        id: newId('whk'), merchantId, url, events, secretEncrypted: sealWebhookSecret(rt.config.encryptionKey, secret),
      });
      return { ...endpointView(row), secret };
    } catch (err) {
      if (isUniqueViolation(err, ENDPOINT_URL_CONSTRAINT)) {
        throw new AppError('CONFLICT', 'A webhook endpoint is already registered for this URL');
      }
      throw err;
    }
  }, hook);
}

/** Idempotency replay of POST /webhooks: the stored answer lacks the secret; it is read back, decrypted. */
export async function restoreSecret(rt: Runtime, merchantId: string, data: unknown): Promise<CreatedEndpoint> {
  const stored = data as Endpoint;
  const row = await selectEndpoint(rt.pool, merchantId, stored.id);
  if (!row?.secret_encrypted) throw endpointNotFound();
  return { ...stored, secret: openWebhookSecret(rt.config.encryptionKey, row.secret_encrypted) };
}

export async function listEndpoints(rt: Runtime, merchantId: string, page: PageRequest): Promise<Page<Endpoint>> {
  const result = await keysetPage<EndpointRow>(
    rt.pool, rt.cursors, { merchantId, list: 'webhooks' }, { sql: LIST_ENDPOINTS_SQL, params: [merchantId] }, page,
  );
  return { items: result.items.map(endpointView), pagination: result.pagination };
}

export async function getEndpoint(rt: Runtime, merchantId: string, id: string): Promise<Endpoint> {
  const row = await selectEndpoint(rt.pool, merchantId, id);
  if (!row) throw endpointNotFound();
  return endpointView(row);
}

/**
 * Permanent: the row and its secret are gone. Delivery jobs still queued for it find no endpoint
 * and drop themselves; registering the URL again makes a new endpoint with a new secret.
 */
export async function deleteEndpoint(rt: Runtime, merchantId: string, id: string): Promise<void> {
  if (!(await deleteEndpointRow(rt.pool, merchantId, id))) throw endpointNotFound();
}

export async function listDeliveries(rt: Runtime, merchantId: string, endpointId: string, page: PageRequest): Promise<Page<Delivery>> {
  if (!(await selectEndpoint(rt.pool, merchantId, endpointId))) throw endpointNotFound();
  const result = await keysetPage<DeliveryRow>(
    rt.pool, rt.cursors, { merchantId, list: 'webhook-deliveries', endpointId },
    { sql: LIST_DELIVERIES_SQL, params: [endpointId, merchantId] }, page,
  );
  return { items: result.items.map(deliveryView), pagination: result.pagination };
}
