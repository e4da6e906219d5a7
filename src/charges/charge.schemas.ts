import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../platform/http/envelope.js';
import { PageQuery } from '../platform/pagination.js';

const CHARGE_STATUSES = ['PENDING', 'PAID', 'EXPIRED', 'REFUNDED', 'DISPUTED'] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];
const SPLIT_MODES = ['FIXED', 'PERCENT'] as const;
export type SplitMode = (typeof SPLIT_MODES)[number];

const ChargeId = Type.String({ minLength: 1, maxLength: 64 });

// Due-date charges (docs/contract/due-date-charges.md#due-date-charges). Values are cents or basis points up to what
// BACEN's `\d{1,10}\.\d{2}` carries; "> 0", real dates and the rest are the creation check's
// (due-date-check.rules.ts), which names the field as these schemas cannot.
/** A civil date `YYYY-MM-DD` (whether it is a real day is checked where the field is named). */
export const CivilDateText = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', examples: ['2026-12-10'] });
const RuleValue = Type.Integer({ maximum: 999_999_999_999 });
const FixedOrPercent = Type.Object({ mode: StringEnum(['FIXED', 'PERCENT'] as const), value: RuleValue });
const InterestRule = Type.Object({
  mode: StringEnum(['AMOUNT_PER_DAY', 'PERCENT_PER_DAY', 'PERCENT_PER_MONTH', 'PERCENT_PER_YEAR'] as const), value: RuleValue,
});
/** One object for the four modes: `tiers` for the *_UNTIL ones, `value` for the per-day ones (checked by the service). */
const DiscountRule = Type.Object({
  mode: StringEnum(['FIXED_UNTIL', 'PERCENT_UNTIL', 'AMOUNT_PER_DAY_EARLY', 'PERCENT_PER_DAY_EARLY'] as const),
  // 1 to 3 tiers: the creation check's (`discount.tiers: must have 1 to 3 tiers`), one message for both bounds.
  tiers: Type.Optional(Type.Array(Type.Object({ date: CivilDateText, value: RuleValue }))),
  value: Type.Optional(RuleValue),
});
export type DiscountInput = Static<typeof DiscountRule>;
const dueDateFields = {
  dueDate: Type.Optional(CivilDateText),
  daysAfterDue: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
  fine: Type.Optional(FixedOrPercent),
  interest: Type.Optional(InterestRule),
  discount: Type.Optional(DiscountRule),
  rebate: Type.Optional(FixedOrPercent),
};

export const ChargeCreateBody = Type.Object({
  method: Type.Literal('PIX'),
  amount: Type.Integer({ minimum: 100, maximum: 100_000_000 }),
  description: Type.Optional(Type.String({ maxLength: 140 })),
  customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  expiresIn: Type.Optional(Type.Integer({ minimum: 60, maximum: 2_592_000 })),
  ...dueDateFields,
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

const FixedOrPercentSchema = () => Type.Object({ mode: StringEnum(['FIXED', 'PERCENT'] as const), value: Type.Integer() });
const TierSchema = Type.Object({ date: Type.String(), value: Type.Integer() });
const DiscountSchema = Type.Object({
  mode: StringEnum(['FIXED_UNTIL', 'PERCENT_UNTIL', 'AMOUNT_PER_DAY_EARLY', 'PERCENT_PER_DAY_EARLY'] as const),
  tiers: Type.Optional(Type.Array(TierSchema)),
  value: Type.Optional(Type.Integer()),
});
/** `{original, rebate, discount, fine, interest}` in cents (docs/contract/due-date-charges.md#charge-object). */
export const BreakdownSchema = Type.Object({
  original: Type.Integer(), rebate: Type.Integer(), discount: Type.Integer(), fine: Type.Integer(), interest: Type.Integer(),
});

/** A debit attempt of a subscription's cycle charge by the payer's bank (docs/contract/subscriptions.md#cycle-charges). */
const AttemptSchema = Type.Object({
  date: Type.String({ format: 'date' }),
  outcome: Type.String(),
  end2endId: Nullable(Type.String()),
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
  /** The subscription the charge belongs to (a cycle's, or journey 3's first), null on every other. */
  subscriptionId: Nullable(Type.String()),
  /** Only on a subscription cycle's charge (docs/contract/subscriptions.md#cycle-charges): its debit attempts, and why it failed once EXPIRED. */
  attempts: Type.Optional(Type.Array(AttemptSchema)),
  failedReason: Type.Optional(Nullable(Type.String())),
  split: Type.Array(SplitEntrySchema),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  paidAt: Nullable(Timestamp),
  end2endId: Nullable(Type.String()),
  fee: Nullable(Type.Integer()),
  netAmount: Nullable(Type.Integer()),
  refund: Type.Optional(RefundSchema),
  // A due-date charge's terms as given, and what was paid (docs/contract/due-date-charges.md#charge-object);
  // all null on an immediate charge. A subscription cycle's charge has its cycle's dueDate and no other term.
  dueDate: Nullable(Type.String()),
  daysAfterDue: Nullable(Type.Integer()),
  fine: Nullable(FixedOrPercentSchema()),
  interest: Nullable(Type.Object({ mode: InterestRule.properties.mode, value: Type.Integer() })),
  discount: Nullable(DiscountSchema),
  rebate: Nullable(FixedOrPercentSchema()),
  paidAmount: Nullable(Type.Integer()),
  paidBreakdown: Nullable(BreakdownSchema),
};
/** The amount due today and its parts: `check`-shaped answers only (null unless a due-date charge can be paid today). */
const amountDueFields = { amountDue: Nullable(Type.Integer()), breakdown: Nullable(BreakdownSchema) };

/** A list item: no image, customer without phone. */
export const ChargeListItemSchema = Type.Object({ ...chargeFields, customer: Type.Optional(ChargeCustomer) });
/** The create answer: with the image, customer without phone (docs/contract/charges.md#charge-object). */
export const ChargeCreatedSchema = Type.Object({ ...chargeFields, imageBase64: Type.String(), customer: Type.Optional(ChargeCustomer) });
/** `check`, the refund answer and the simulator's answers: image and the complete customer. */
export const ChargeCheckSchema = Type.Object({
  ...chargeFields, ...amountDueFields, imageBase64: Type.String(), customer: Type.Optional(ChargeCustomerWithPhone),
});
const AmountDueSchema = Type.Object(amountDueFields);
export type ChargeCreate = Static<typeof ChargeCreateBody>;
export type ChargeListFilters = Static<typeof ChargeListQuery>;
export type SplitEntry = Static<typeof SplitEntrySchema>;
export type Refund = Static<typeof RefundSchema>;
export type Attempt = Static<typeof AttemptSchema>;
/**
 * The charge as built once for every answer; `customer.phone` is present only where shown, and the amount due
 * today is computed for every answer but serialised only by the `check`-shaped ones.
 */
export type Charge = Static<typeof ChargeListItemSchema> & { customer?: { phone?: string | null } } & Static<typeof AmountDueSchema>;
export type ChargeWithImage = Charge & { imageBase64: string };
