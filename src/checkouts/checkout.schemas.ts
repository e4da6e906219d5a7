import { Type, type Static } from 'typebox';
import { ChargeCreateBody } from '../charges/charge.schemas.js';
import { StringEnum } from '../platform/http/envelope.js';
import { PageQuery } from '../platform/pagination.js';
import { CHECKOUT_STATUSES, Items } from './object/checkout.schemas.js';

const Id = Type.String({ minLength: 1, maxLength: 64 });

/** An absolute http(s) URL; the service checks the scheme and that it parses (docs/contract/checkouts.md#checkouts). */
export const PageUrl = Type.String({ minLength: 1, maxLength: 2048 });

const Split = ChargeCreateBody.properties.split;

export const CheckoutCreateBody = Type.Object({
  items: Items,
  customerId: Type.Optional(Id),
  description: Type.Optional(Type.String({ maxLength: 140 })),
  externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  metadata: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 40 }), Type.String({ maxLength: 500 }), { maxProperties: 20 })),
  returnUrl: Type.Optional(PageUrl),
  completionUrl: Type.Optional(PageUrl),
  expiresIn: Type.Optional(Type.Integer({ minimum: 300, maximum: 2_592_000 })),
  split: Split,
});
export type CheckoutCreate = Static<typeof CheckoutCreateBody>;

export const CheckoutListQuery = Type.Object({
  status: Type.Optional(StringEnum(CHECKOUT_STATUSES)),
  externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  paymentLinkId: Type.Optional(Id),
  ...PageQuery,
});
export type CheckoutListFilters = Static<typeof CheckoutListQuery>;

export const CheckoutParams = Type.Object({ id: Id });

