import { randomInt } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import type { Runtime } from '../runtime.js';
import { periodicTask } from '../platform/periodic.js';
import type { Executor } from '../platform/db.js';
import { claimDrain, queueNextDrain, queueOverdueDrains, type AttemptRecord } from './delivery.sql.js';
import { DRAIN_TASK } from '../events/event-fanout.sql.js';
import { recordSent, sendAttempt } from './webhook-attempt.service.js';

/**
 * Attempts one slow endpoint's drain runs at once: one while its attempts fail (a hanging receiver costs
 * one open request and one record per timeout), doubling after each round that all succeeded, up to
 * DRAIN_PARALLEL (a receiver that only answers slowly still drains several at a time).
 */
export const DRAIN_PARALLEL = 4;

function parseDrain(payload: unknown): string {
  const endpointId = (payload as { endpointId?: unknown } | null)?.endpointId;
  if (typeof endpointId !== 'string') throw new Error(`${DRAIN_TASK}: malformed payload`);
  return endpointId;
}

/**
 * The slow lane's job for one endpoint (one slot of the slow lane): its due attempts, oldest first,
 * as many at a time as its receiver copes with, for up to two timeouts; then its next run goes behind the other endpoints'
 * drains waiting, so a merchant with many hanging receivers takes its turn like any other. Each attempt is
 * sent and recorded as in the fast lane (webhook-attempt.service.ts); safe to run twice (a leased pair is not
 * taken twice, and an attempt recorded moves its pair on). `stopping`: the worker's shutdown, after which it
 * starts no more rounds.
 */
export async function drain(rt: Runtime, payload: unknown, stopping?: AbortSignal): Promise<void> {
  const endpointId = parseDrain(payload);
  const leaseMs = rt.config.webhookTimeoutMs + 30_000;
  const until = Date.now() + 2 * rt.config.webhookTimeoutMs;
  let parallel = 1;
  do {
    const due = await claimDrain(rt.pool, endpointId, parallel, leaseMs);
    if (!due.length) break;
    // A round is recorded in one statement; a drain that fails before recording leaves its attempts leased.
    const sent = (await Promise.all(due.map((target) => sendAttempt(rt, target)))).filter((r): r is AttemptRecord => r !== undefined);
    await recordSent(rt, sent);
    const succeeded = sent.every((r) => r.success);
    parallel = succeeded ? Math.min(DRAIN_PARALLEL, parallel * 2) : 1;
    // Receivers that hang time out together, round after round, and their records and next sends would
    // land on the database in one burst that delays everyone's work; a random pause after a failed round
    // spreads them out (and costs a failing receiver nothing it could use).
    if (!succeeded) await setTimeout(randomInt(Math.ceil(rt.config.webhookTimeoutMs / 2)), undefined, { signal: stopping }).catch(() => {});
  } while (Date.now() < until && !stopping?.aborted); // a worker shutting down takes no more
  await queueNextDrain(rt.pool, endpointId);
}

/**
 * A pair that commits while its endpoint's drain is ending (after that drain looked for the next run) finds a
 * drain running and queues none; this sweep queues it one when it is this overdue. Short: since burst slots
 * (fairness.rules.ts), spills are rare and each lost wake-up is a delivery late by up to twice this.
 */
const SWEEP_EVERY_MS = 5_000;

export const drainSweep = (db: Executor) =>
  periodicTask(db, 'webhooks.drain-sweep', SWEEP_EVERY_MS, () => queueOverdueDrains(db, SWEEP_EVERY_MS));
