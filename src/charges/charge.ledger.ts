import { FEE_REVENUE, merchantAccount, PSP_CLEARING, type Posting } from '../ledger/ledger.js';
import type { SplitRow } from './charge.sql.js';

/**
 * A payment in one posting (docs/contract/charges.md#split): the PSP holds the amount; the merchant gets netAmount,
 * each split recipient its share, the platform its fee — all to `available` (PIX settles instantly).
 */
export function paymentPosting(
  charge: { id: string; merchant_id: string; amount: number; fee: number; net_amount: number }, splits: SplitRow[],
): Posting {
  return {
    kind: 'CHARGE_PAYMENT',
    reference: charge.id,
    entries: [
      { account: PSP_CLEARING, amount: -charge.amount },
      { account: merchantAccount(charge.merchant_id, 'available'), amount: charge.net_amount },
      ...splits.map((s) => ({ account: merchantAccount(s.recipient_id, 'available'), amount: s.amount })),
      { account: FEE_REVENUE, amount: charge.fee },
    ],
  };
}
