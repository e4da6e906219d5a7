import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../platform/http/envelope.js';

/*
 * The checkout object (docs/contract/checkouts.md#checkout-object): what the API answers and what
 * CHECKOUT_PAID / CHECKOUT_REFUNDED carry. A folder of its own below the checkouts slice, because the
 * charge, refund and dispute paths emit those events and the checkout commands call those paths back.
 */
export const CHECKOUT_STATUSES = ['PENDING', 'PAID', 'EXPIRED', 'REFUNDED', 'DISPUTED'] as const;

export const ItemSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 120 }),
  quantity: Type.Integer({ minimum: 1, maximum: 10_000 }),
  unitPrice: Type.Integer({ minimum: 1, maximum: 100_000_000 }),
});
export const Items = Type.Array(ItemSchema, { minItems: 1, maxItems: 50 });
export type Item = Static<typeof ItemSchema>;

const customerFields = { id: Type.String(), name: Nullable(Type.String()), taxId: Nullable(Type.String()), email: Type.String() };

const checkoutFields = {
  id: Type.String(),
  status: StringEnum(CHECKOUT_STATUSES),
  amount: Type.Integer(),
  items: Type.Array(ItemSchema),
  description: Nullable(Type.String()),
  externalId: Nullable(Type.String()),
  metadata: Nullable(Type.Record(Type.String(), Type.String())),
  url: Type.String(),
  returnUrl: Nullable(Type.String()),
  completionUrl: Nullable(Type.String()),
  paymentLinkId: Nullable(Type.String()),
  chargeId: Type.String(),
  brCode: Type.String(),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  paidAt: Nullable(Timestamp),
};

/** The create answer and list items: customer as on charge lists (no phone). */
export const CheckoutSchema = Type.Object({ ...checkoutFields, customer: Type.Optional(Type.Object(customerFields)) });
/** GET /checkouts/{id}, the refund answer and event data: the customer with phone, as `check` shows it. */
export const CheckoutDetailSchema = Type.Object({
  ...checkoutFields, customer: Type.Optional(Type.Object({ ...customerFields, phone: Nullable(Type.String()) })),
});
export type Checkout = Static<typeof CheckoutSchema> & { customer?: { phone?: string | null } };
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];
