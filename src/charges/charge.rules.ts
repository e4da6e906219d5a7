import type { MerchantRow } from '../merchants/merchant.sql.js';
import { selectMerchants } from '../merchants/merchant.sql.js';
import type { Executor } from '../platform/db.js';
import { AppError, validationError } from '../platform/errors.js';
import type { ChargeCreate, SplitEntry } from './charge.schemas.js';

/** floor(n / d) for non-negative integers, exact: no floating-point division is involved. */
const floorDiv = (n: number, d: number) => (n - (n % d)) / d;

/**
 * docs/contract/charges.md#charge-fee: chargeFeeFixed + floor(amount × chargeFeeBps / 10000) — the merchant's terms
 * now, or those a due-date charge kept from its creation for the amount it is paid.
 */
export const chargeFee = (m: Pick<MerchantRow, 'charge_fee_fixed' | 'charge_fee_bps'>, amount: number) =>
  m.charge_fee_fixed + floorDiv(amount * m.charge_fee_bps, 10_000);

/** docs/contract/charges.md#charges: a charge needs the merchant's KYC approved and a PIX key on file. */
export function assertCanCharge(m: MerchantRow): void {
  if (m.kyc_status !== 'APPROVED') throw new AppError('FORBIDDEN', 'Charges need the merchant\'s KYC to be APPROVED');
  if (!m.pix_key) throw new AppError('FORBIDDEN', 'Charges need a PIX key on file for the merchant');
}

/** The merchant's tickets; `field` names what the amount came from (a checkout's `items`). */
export function checkTicket(m: MerchantRow, amount: number, field = 'amount'): void {
  if (amount < m.min_ticket) throw validationError(field, `must be >= ${m.min_ticket}`);
  if (amount > m.max_ticket) throw validationError(field, `must be <= ${m.max_ticket}`);
}

/**
 * docs/contract/charges.md#split: PERCENT is a whole percent 1..100 of the gross amount (floor), FIXED is cents;
 * one entry per recipient, never the charging merchant; each recipient exists, has KYC APPROVED,
 * is not suspended and has a PIX key.
 */
export async function resolveSplit(db: Executor, merchantId: string, amount: number, input: NonNullable<ChargeCreate['split']>): Promise<SplitEntry[]> {
  input.forEach((e, i) => {
    if (e.mode === 'PERCENT' && e.value > 100) throw validationError(`split[${i}].value`, 'must be <= 100');
  });
  if (input.length === 0) return [];
  const recipients = await selectMerchants(db, input.map((e) => e.merchantId));
  const seen = new Set<string>();
  const entries: SplitEntry[] = [];
  for (const [i, e] of input.entries()) {
    const field = `split[${i}].merchantId`;
    if (e.merchantId === merchantId) throw validationError(field, 'cannot be the charging merchant');
    if (seen.has(e.merchantId)) throw validationError(field, 'duplicate recipient');
    seen.add(e.merchantId);
    const recipient = recipients.get(e.merchantId);
    if (!recipient) throw validationError(field, 'not found');
    if (recipient.kyc_status !== 'APPROVED') throw validationError(field, 'KYC not approved');
    if (recipient.suspended) throw validationError(field, 'merchant is suspended');
    if (!recipient.pix_key) throw validationError(field, 'has no PIX key');
    const share = e.mode === 'PERCENT' ? floorDiv(amount * e.value, 100) : e.value;
    entries.push({ merchantId: e.merchantId, mode: e.mode, value: e.value, amount: share });
  }
  return entries;
}

/** netAmount = amount − fee − Σ split, which must not be negative; `field` names the amount in the message. */
export function netAmount(amount: number, fee: number, split: SplitEntry[], field = 'amount'): number {
  const shares = split.reduce((sum, s) => sum + s.amount, 0);
  const net = amount - fee - shares;
  if (net < 0) {
    if (split.length === 0) throw validationError(field, `must cover the fee (${fee})`);
    throw validationError('split', `total ${shares} exceeds the amount after fees (${amount - fee})`);
  }
  return net;
}
