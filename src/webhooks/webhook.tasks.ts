import type { TaskList } from 'graphile-worker';
import type { Runtime } from '../runtime.js';
import { handOverJob } from './delivery.sql.js';
import { DELIVER_TASK, deliveriesDue, DRAIN_TASK } from '../events/event-fanout.sql.js';
import { withStatement } from '../platform/db.js';
import { drain } from './slow-lane.tasks.js';

/** Slow-lane jobs of releases before migration 0012 (or of their processes during a rolling upgrade). */
export const DELIVER_SLOW_TASK = 'webhooks.deliver-slow';

interface DeliveryJob {
  eventId: string;
  endpointId: string;
  attempt: number;
  /** Absent in jobs queued before series existed: the automatic one. */
  series?: number;
}

function parseJob(payload: unknown): Required<DeliveryJob> {
  const p = payload as Partial<DeliveryJob> | null;
  if (typeof p?.eventId !== 'string' || typeof p.endpointId !== 'string' || !Number.isInteger(p.attempt)) {
    throw new Error(`${DELIVER_TASK}: malformed payload`);
  }
  return { eventId: p.eventId, endpointId: p.endpointId, attempt: p.attempt!, series: Number.isInteger(p.series) ? p.series! : 1 };
}

/**
 * A delivery job of an older release (`webhooks.deliver`, `webhooks.deliver-slow`): its attempt is handed,
 * unsent, to its pair — due now in its endpoint's lane — where a dispatcher or the endpoint's drain takes it
 * like any other. Nothing for a pair that moved on (the attempt recorded, a newer series, the endpoint deleted).
 */
export async function deliver(rt: Runtime, payload: unknown): Promise<void> {
  const job = parseJob(payload);
  await withStatement(rt.pool, async (db) => deliveriesDue(db, await handOverJob(db, job)));
}

/** The slow lane's tasks (one slot per slow endpoint's drain), and the hand-over of older releases' delivery jobs. */
export function webhookTasks(rt: Runtime): TaskList {
  return {
    [DRAIN_TASK]: (payload, helpers) => drain(rt, payload, helpers.abortSignal),
    [DELIVER_TASK]: (payload) => deliver(rt, payload),
    [DELIVER_SLOW_TASK]: (payload) => deliver(rt, payload),
  };
}
