import { Type, type Static } from 'typebox';
import { Nullable, Timestamp } from '../platform/http/envelope.js';
import { PageQuery } from '../platform/pagination.js';

export const CustomerCreateBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254 }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
  // Digits only; the service tells CPF from CNPJ by length and checks the check digits.
  taxId: Type.Optional(Type.String({ maxLength: 64 })),
  phone: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
});

export const CustomerListQuery = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
  taxId: Type.Optional(Type.String({ minLength: 1, maxLength: 14 })),
  ...PageQuery,
});

export const CustomerParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const CustomerSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Nullable(Type.String()),
  taxId: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  createdAt: Timestamp,
});

export type CustomerCreate = Static<typeof CustomerCreateBody>;
export type CustomerListFilters = Static<typeof CustomerListQuery>;
export type Customer = Static<typeof CustomerSchema>;
