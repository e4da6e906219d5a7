import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../platform/http/envelope.js';
import { PageQuery } from '../platform/pagination.js';

const CHARGE_STATUSES = ['PENDING', 'PAID', 'EXPIRED', 'REFUNDED', 'DISPUTED'] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];
const SPLIT_MODES = ['FIXED', 'PERCENT'] as const;
export type SplitMode = (typeof SPLIT_MODES)[number];

const ChargeId = Type.String({ minLength: 1, maxLength: 64 });

export const ChargeCreateBody = Type.Object({
  method: Type.Literal('PIX'),
  amount: Type.Integer({ minimum: 100, maximum: 100_000_000 }),
  description: Type.Optional(Type.String({ maxLength: 140 })),
  customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  expiresIn: Type.Optional(Type.Integer({ minimum: 60, maximum: 2_592_000 })),
  split: Type.Optional(Type.Array(Type.Object({
    merchantId: Type.String({ minLength: 1, maxLength: 64 }),
    mode: StringEnum(SPLIT_MODES),
    // PERCENT: a whole percent 1..100 (checked by the service, which names the entry); FIXED: cents.
    value: Type.Integer({ minimum: 1, maximum: 100_000_000 }),
  }), { maxItems: 10 })),
});

export const ChargeListQuery = Type.Object({
  id: Type.Optional(ChargeId),
  email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
  status: Type.Optional(StringEnum(CHARGE_STATUSES)),
  ...PageQuery,
});

export const ChargeIdQuery = Type.Object({ id: ChargeId });

const SplitEntrySchema = Type.Object({
  merchantId: Type.String(),
  mode: StringEnum(SPLIT_MODES),
  value: Type.Integer(),
  amount: Type.Integer(),
});

const CustomerFields = { id: Type.String(), name: Nullable(Type.String()), taxId: Nullable(Type.String()), email: Type.String() };
const ChargeCustomer = Type.Object(CustomerFields);
const ChargeCustomerWithPhone = Type.Object({ ...CustomerFields, phone: Nullable(Type.String()) });

/** One refund object everywhere (docs/contract/charges.md#refund-object). */
const RefundSchema = Type.Object({
  id: Type.String(),
  chargeId: Type.String(),
  amount: Type.Integer(),
  status: StringEnum(['PENDING', 'COMPLETED', 'FAILED'] as const),
  reason: StringEnum(['MERCHANT', 'DISPUTE'] as const),
  failedReason: Nullable(Type.String()),
  createdAt: Timestamp,
  completedAt: Nullable(Timestamp),
});

const chargeFields = {
  id: Type.String(),
  amount: Type.Integer(),
  status: StringEnum(CHARGE_STATUSES),
  txid: Type.String(),
  brCode: Type.String(),
  description: Nullable(Type.String()),
  /** The checkout that owns the charge, null on every other (docs/contract/checkouts.md#checkouts). */
  checkoutId: Nullable(Type.String()),
  split: Type.Array(SplitEntrySchema),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  paidAt: Nullable(Timestamp),
  end2endId: Nullable(Type.String()),
  fee: Nullable(Type.Integer()),
  netAmount: Nullable(Type.Integer()),
  refund: Type.Optional(RefundSchema),
};

/** A list item: no image, customer without phone. */
export const ChargeListItemSchema = Type.Object({ ...chargeFields, customer: Type.Optional(ChargeCustomer) });
/** The create answer: with the image, customer without phone (docs/contract/charges.md#charge-object). */
export const ChargeCreatedSchema = Type.Object({ ...chargeFields, imageBase64: Type.String(), customer: Type.Optional(ChargeCustomer) });
/** `check`, the refund answer and the simulator's answers: image and the complete customer. */
export const ChargeCheckSchema = Type.Object({ ...chargeFields, imageBase64: Type.String(), customer: Type.Optional(ChargeCustomerWithPhone) });
export type ChargeCreate = Static<typeof ChargeCreateBody>;
export type ChargeListFilters = Static<typeof ChargeListQuery>;
export type SplitEntry = Static<typeof SplitEntrySchema>;
export type Refund = Static<typeof RefundSchema>;
/** The charge as built once for every answer; `customer.phone` is present only where shown. */
export type Charge = Static<typeof ChargeListItemSchema> & { customer?: { phone?: string | null } };
export type ChargeWithImage = Charge & { imageBase64: string };
