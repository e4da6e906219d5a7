import { emitEvent, type NewEvent } from '../events/event.sql.js';
import { withTransaction, type Executor, type Tx } from '../platform/db.js';
import { enqueue, type EnqueueOptions } from '../platform/jobs.js';
import type { Runtime } from '../runtime.js';
import { enqueueDueExpiries, lockCharge, setChargeStatus } from './charge.sql.js';
import { loadCharge } from './charge.view.js';

export const EXPIRE_TASK = 'charges.expire';
export const EXPIRY_SWEEP_TASK = 'charges.schedule-expiries';
const EXPIRY_KEY_PREFIX = 'charge-expire:';
const SWEEP_EVERY_MS = 30_000;
/** Longer than the sweep period, so every charge (expiresIn >= 60 s) gets its job before it is due. */
const SWEEP_HORIZON_MS = 60_000;

/** One expiry job per charge (the key deduplicates a re-enqueue), due at expiresAt. */
const expiryJob = (chargeId: string, expiresAt: Date): EnqueueOptions => ({ runAt: expiresAt, jobKey: `${EXPIRY_KEY_PREFIX}${chargeId}` });

export const scheduleExpirySweep = (db: Executor, runAt?: Date) => enqueue(db, EXPIRY_SWEEP_TASK, {}, { jobKey: EXPIRY_SWEEP_TASK, runAt });

/**
 * Expiry jobs are not enqueued by charge creation: a queued job costs about as much database time as
 * the rest of the create (docs/performance.md), and nearly every charge is paid long before it expires.
 * Instead this sweep, every 30 s, gives each charge expiring within the next minute its job, due at
 * expiresAt, so CHARGE_EXPIRED stays on time. It also re-enqueues the job of a charge overdue by a
 * minute (a job lost with a dead worker). Rescheduled first, so a failing sweep never ends the cycle.
 */
export async function sweepExpiries(rt: Runtime): Promise<void> {
  await scheduleExpirySweep(rt.pool, new Date(Date.now() + SWEEP_EVERY_MS));
  await enqueueDueExpiries(rt.pool, { task: EXPIRE_TASK, keyPrefix: EXPIRY_KEY_PREFIX, horizonMs: SWEEP_HORIZON_MS });
}

/**
 * The expiry job: PENDING → EXPIRED and CHARGE_EXPIRED, exactly once (the row lock and the status
 * check make a second run, or a run after a payment, do nothing). Reads already show EXPIRED from
 * expiresAt on, computed in SQL; this job makes it durable and emits the event.
 */
export async function expireCharge(rt: Runtime, chargeId: string): Promise<void> {
  await withTransaction(rt.pool, async (tx) => {
    const charge = await lockCharge(tx, 'id', chargeId);
    if (!charge || charge.status !== 'PENDING') return;
    // Run early (clock skew between worker and database): come back when it is due.
    if (charge.effective_status !== 'EXPIRED') return enqueue(tx, EXPIRE_TASK, { chargeId }, expiryJob(chargeId, charge.expires_at));
    await emitEvent(tx, await markExpired(tx, charge.merchant_id, chargeId));
  });
}

/** A locked charge becomes EXPIRED for good; answers its CHARGE_EXPIRED for the caller to record with the change's other events. */
export async function markExpired(tx: Tx, merchantId: string, chargeId: string): Promise<NewEvent> {
  await setChargeStatus(tx, chargeId, 'EXPIRED');
  return { merchantId, type: 'CHARGE_EXPIRED', data: await loadCharge(tx, chargeId) };
}
