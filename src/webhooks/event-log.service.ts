import { notFound } from '../platform/errors.js';
import { keysetPage, type Page, type PageRequest } from '../platform/pagination.js';
import type { Runtime } from '../runtime.js';
import { selectEventAttempts } from './delivery.sql.js';
import { deliveryView, type Delivery } from './webhook.service.js';
import type { EventListQuery } from './event-log.schemas.js';
import { listEventsQuery, selectEvent, type EventRow } from './event-log.sql.js';
import type { AnyEventType } from '../events/event.schemas.js';

export interface Event {
  id: string;
  type: AnyEventType;
  createdAt: string;
  data: unknown;
  deliveries: { pending: number; succeeded: number; failed: number };
}

// `data` is read back from the bytes that were signed and sent, so it is exactly that payload's, key order included.
const eventView = (r: EventRow): Event => ({
  id: r.id, type: r.type, createdAt: r.created_at.toISOString(), data: (JSON.parse(r.body) as { data: unknown }).data,
  deliveries: { pending: r.pending, succeeded: r.succeeded, failed: r.failed },
});

export async function listEvents(rt: Runtime, merchantId: string, q: EventListQuery): Promise<Page<Event>> {
  const { type, deliveryStatus, ...page } = q;
  const scope = { merchantId, list: 'events', type, deliveryStatus };
  const result = await keysetPage<EventRow>(rt.pool, rt.cursors, scope, listEventsQuery(merchantId, { type, deliveryStatus }), page as PageRequest);
  return { items: result.items.map(eventView), pagination: result.pagination };
}

export async function getEvent(rt: Runtime, merchantId: string, id: string): Promise<Event & { attempts: Delivery[] }> {
  const [row, attempts] = await Promise.all([selectEvent(rt.pool, merchantId, id), selectEventAttempts(rt.pool, merchantId, id)]);
  if (!row) throw notFound('Event');
  return { ...eventView(row), attempts: attempts.map(deliveryView) };
}
