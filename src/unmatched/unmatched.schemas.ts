import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../platform/http/envelope.js';
import { PageQuery } from '../platform/pagination.js';
import type { UnmatchedRow } from './unmatched.sql.js';

export const UNMATCHED_STATUSES = ['OPEN', 'REFUNDING', 'REFUNDED'] as const;

/** docs/contract/psp.md#unmatched-payments: a received PIX that matched no charge. */
export const UnmatchedPaymentSchema = Type.Object({
  id: Type.String(),
  end2endId: Type.String(),
  txid: Nullable(Type.String()),
  amount: Type.Integer(),
  payer: Nullable(Type.Object({ name: Nullable(Type.String()), taxId: Nullable(Type.String()) })),
  receivedAt: Timestamp,
  status: StringEnum(UNMATCHED_STATUSES),
  failedReason: Nullable(Type.String()),
});
export type UnmatchedPayment = Static<typeof UnmatchedPaymentSchema>;

export const UnmatchedListQuery = Type.Object({ ...PageQuery, status: Type.Optional(StringEnum(UNMATCHED_STATUSES)) });
export const UnmatchedIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export function toUnmatchedPayment(r: UnmatchedRow): UnmatchedPayment {
  return {
    id: r.id, end2endId: r.end2end_id, txid: r.txid, amount: r.amount,
    payer: r.payer_name === null && r.payer_tax_id === null ? null : { name: r.payer_name, taxId: r.payer_tax_id },
    receivedAt: r.received_at.toISOString(), status: r.status, failedReason: r.failed_reason,
  };
}
