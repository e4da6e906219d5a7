import type { MerchantRow } from '../merchants/merchant.sql.js';

/**
 * The fee of a withdrawal of `amount` cents, charged on top of it (docs/contract/withdrawals.md#withdrawal-fee):
 * the merchant's fixed `withdrawalFeeFixed` today. The one place the fee is computed — the insert stores it,
 * GET /withdrawals/quote shows it before — so a new fee rule is a change here.
 */
export const withdrawalFee = (merchant: Pick<MerchantRow, 'withdrawal_fee_fixed'>, _amount: number): number => merchant.withdrawal_fee_fixed;
