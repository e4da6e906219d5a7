import type { TaskList } from 'graphile-worker';
import type { Runtime } from '../runtime.js';
import { scheduleAttempt, selectDeliveryTarget } from './delivery.sql.js';
import { FastLaneShares } from './fairness.rules.js';
import { DELIVER_TASK, DRAIN_TASK } from '../events/event-fanout.sql.js';
import { attempt, type Attempt, type DeliveryJob } from './webhook-attempt.service.js';
import { drain } from './slow-lane.tasks.js';

/** Slow-lane jobs of releases before migration 0012 (or of their processes during a rolling upgrade): they wait on their pair instead. */
export const DELIVER_SLOW_TASK = 'webhooks.deliver-slow';

function parseJob(payload: unknown): Attempt {
  const p = payload as Partial<DeliveryJob> | null;
  if (typeof p?.eventId !== 'string' || typeof p.endpointId !== 'string' || !Number.isInteger(p.attempt)) {
    throw new Error(`${DELIVER_TASK}: malformed payload`);
  }
  return { eventId: p.eventId, endpointId: p.endpointId, attempt: p.attempt!, series: Number.isInteger(p.series) ? p.series! : 1 };
}

/**
 * A fast-lane job: one delivery attempt of one event to one endpoint. Safe to run twice: an attempt
 * already recorded is not sent again, and the record and the next attempt's scheduling commit together.
 * A delivery to a slow endpoint, or one beyond its merchant's share of this process's slots, moves to
 * the slow lane unsent (fairness.rules.ts); so does a slow-lane job of an older release.
 */
export async function deliver(rt: Runtime, payload: unknown, fast: FastLaneShares | null): Promise<void> {
  const job = parseJob(payload);
  const target = await selectDeliveryTarget(rt.pool, job);
  // Endpoint deleted (pending deliveries are dropped), already done, or replaced by a newer series.
  if (!target || target.series === null || target.recorded || job.series !== target.series) return;
  if (!fast || target.slow || !fast.take(target.merchant_id)) {
    await scheduleAttempt(rt.pool, job, { slow: true, runAt: null });
    return;
  }
  try {
    await attempt(rt, job, target);
  } finally {
    fast.release(target.merchant_id);
  }
}

/** The fast lane shares its slots among merchants; the slow lane gives each slow endpoint's drain one slot, in turn. */
export function webhookTasks(rt: Runtime, fastSlots: number): { fast: TaskList; slow: TaskList } {
  const shares = new FastLaneShares(fastSlots);
  return {
    fast: { [DELIVER_TASK]: (payload) => deliver(rt, payload, shares) },
    slow: { [DRAIN_TASK]: (payload, helpers) => drain(rt, payload, helpers.abortSignal), [DELIVER_SLOW_TASK]: (payload) => deliver(rt, payload, null) },
  };
}
