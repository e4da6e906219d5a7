import client from 'prom-client';
import { pino, type Logger } from 'pino';
import type { PayoutKind } from './payout-send.sql.js';

/**
 * docs/contract/psp.md#payout-jobs: the PSP reports as made a payout Pixgate had already FAILED and whose money
 * it returned (a withdrawal's amount + fee to available, a refund's debits, an unmatched PIX held again). The
 * money went out and came back: nothing is changed automatically; the operator must look (alert on any).
 */
export const completedAfterFailed = new client.Counter({
  name: 'pixgate_payouts_completed_after_failed_total',
  help: 'Payouts the PSP reported COMPLETED after Pixgate had marked them FAILED and returned their money, by kind',
  labelNames: ['kind'] as const,
});

const loggers = new Map<string, Logger>();
const logAt = (level: string) => {
  let log = loggers.get(level);
  if (!log) loggers.set(level, (log = pino({ level })));
  return log;
};

/** Counts and logs (error level, at LOG_LEVEL) a COMPLETED that arrived for a FAILED payout; changes nothing. */
export function reportCompletedAfterFailed(logLevel: string, kind: PayoutKind, id: string): void {
  completedAfterFailed.inc({ kind });
  logAt(logLevel).error({ kind, id },
    'The PSP reports as completed a payout already FAILED with its money returned: the money left twice; reconcile it by hand');
}
