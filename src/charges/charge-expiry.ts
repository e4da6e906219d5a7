import { emitEvent } from '../events/events.js';
import { withTransaction } from '../platform/db.js';
import { enqueue, type EnqueueOptions } from '../platform/jobs.js';
import type { Runtime } from '../runtime.js';
import { lockCharge, setChargeStatus } from './charge.sql.js';
import { loadCharge } from './charge.view.js';

export const EXPIRE_TASK = 'charges.expire';

/** One expiry job per charge (the key deduplicates a re-enqueue), due at expiresAt. */
export const expiryJob = (chargeId: string, expiresAt: Date): EnqueueOptions => ({ runAt: expiresAt, jobKey: `charge-expire:${chargeId}` });

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
    await setChargeStatus(tx, chargeId, 'EXPIRED');
    await emitEvent(tx, { merchantId: charge.merchant_id, type: 'CHARGE_EXPIRED', data: await loadCharge(tx, chargeId) });
  });
}
