import { saoPauloDate } from '../calendar/index.js';
import { selectChargeView, type ChargeViewRow } from '../charges/charge-view.sql.js';
import { toCharge } from '../charges/charge.view.js';
import { qrPngDataUrl } from '../pix/index.js';
import type { Executor } from '../platform/db.js';
import type { Subscription } from './subscription.schemas.js';
import { nextDueDate } from './subscription.rules.js';
import { selectSubscriptionView, type SubscriptionViewRow } from './subscription.sql.js';

interface ViewOptions {
  /** The create answer and GET /subscriptions/{id} show a QR journey's code while CREATED; lists and events do not. */
  withCode: boolean;
}

/**
 * The subscription as the API shows it (docs/contract/subscriptions.md#subscription-object). `firstCharge` is journey 3's
 * immediate charge as charge lists show it; `nextDueDate` the due date of the first cycle due today or later (issued
 * or not), while the subscription is CREATED or ACTIVE.
 */
async function toSubscription(db: Executor, row: SubscriptionViewRow, opts: ViewOptions): Promise<Subscription> {
  return subscriptionOf(row, row.first_charge_id ? await selectChargeView(db, row.first_charge_id) : undefined, opts);
}

/** toSubscription with its first charge already read (a list reads a page's first charges in one query). */
export function subscriptionOf(row: SubscriptionViewRow, firstRow: ChargeViewRow | undefined, opts: ViewOptions): Subscription {
  const open = row.status === 'CREATED' || row.status === 'ACTIVE';
  const code = opts.withCode && row.status === 'CREATED' ? row.br_code : null;
  return {
    id: row.id,
    status: row.status,
    journey: row.journey,
    customer: { id: row.customer_id, name: row.cu_name, taxId: row.cu_tax_id, email: row.cu_email },
    amount: row.amount,
    minAmount: row.min_amount,
    frequency: row.frequency,
    startDate: row.start_date,
    endDate: row.end_date,
    contract: row.contract,
    description: row.description,
    retryPolicy: row.retry_policy,
    brCode: code,
    imageBase64: code && qrPngDataUrl(code),
    firstCharge: firstRow ? toCharge(firstRow, { phone: false }) : null,
    nextDueDate: open ? nextDueDate(row.start_date, row.frequency, row.end_date, saoPauloDate(new Date())) : null,
    createdAt: row.created_at.toISOString(),
    authorizedAt: row.authorized_at?.toISOString() ?? null,
    endedAt: row.ended_at?.toISOString() ?? null,
    endedBy: row.ended_by,
  };
}

/** A subscription with its merchant id (events), or undefined; `merchantId` null for the worker, provider and simulator. */
export async function loadSubscription(db: Executor, id: string, merchantId: string | null, opts: ViewOptions) {
  const row = await selectSubscriptionView(db, id, merchantId);
  return row && { merchantId: row.merchant_id, subscription: await toSubscription(db, row, opts) };
}
