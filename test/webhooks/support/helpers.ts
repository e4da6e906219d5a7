import { emitEvent } from '../../../src/events/event.sql.js';
import type { EventType } from '../../../src/events/event.schemas.js';
import { withTransaction } from '../../../src/platform/db.js';
import type { TestContext } from '../../support/context.js';
import { eventually } from '../../support/eventually.js';

export interface Registered {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
  secret: string;
}

export async function register(t: TestContext, key: string, url: string, events: string[]): Promise<Registered> {
  const res = await t.request('POST', '/webhooks', { key, body: { url, events } });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.raw}`);
  return res.body.data;
}

export const emit = (t: TestContext, merchantId: string, type: EventType, data: unknown, callbackUrl?: string) =>
  withTransaction(t.pool, (tx) => emitEvent(tx, { merchantId, type, data, callbackUrl }));

/** The endpoint's delivery records (newest first), once there are `count` of them. */
export async function deliveriesOf(t: TestContext, key: string, endpointId: string, count: number, timeoutMs = 5000) {
  return eventually(async () => {
    const res = await t.request('GET', `/webhooks/${endpointId}/deliveries?limit=100`, { key });
    if (res.status !== 200) throw new Error(`deliveries: ${res.status} ${res.raw}`);
    const items = res.body.data as any[];
    if (items.length !== count) throw new Error(`expected ${count} deliveries, have ${items.length}`);
    return items;
  }, timeoutMs);
}

/** Delivery jobs still queued for an event (graphile-worker's public view; keys from event-fanout.sql.ts). */
export async function pendingJobs(t: TestContext, eventId: string): Promise<number> {
  const { rows } = await t.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'webhooks.deliver' AND key LIKE $1`,
    [`webhook:${eventId}:%`],
  );
  return rows[0]!.n;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
