import { Type, type TSchema } from 'typebox';
import { ERROR_STATUS } from '../errors.js';

/** A string of a closed set; its validation error lists the set (`must be one of A, B`). */
export const StringEnum = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });

/** `{ data, error: null, success: true }` — every success answer (docs/contract/http.md#envelope). */
export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({ data, error: Type.Null(), success: Type.Literal(true) });

export const Pagination = Type.Object({
  hasMore: Type.Boolean(),
  next: Type.Union([Type.String(), Type.Null()]),
  before: Type.Union([Type.String(), Type.Null()]),
});

export const ListEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({ data: Type.Array(item), pagination: Pagination, error: Type.Null(), success: Type.Literal(true) });

export const ErrorEnvelope = Type.Object(
  {
    error: StringEnum(Object.keys(ERROR_STATUS) as Array<keyof typeof ERROR_STATUS>),
    message: Type.String(),
    success: Type.Literal(false),
  },
  { $id: 'ErrorEnvelope' },
);

/** Error responses every route may answer; documented once and used by the serializer. */
export const errorResponses = {
  '4xx': Type.Ref('ErrorEnvelope'),
  '5xx': Type.Ref('ErrorEnvelope'),
};

/** A success answer that is a file or a page of its own media type, not the envelope (errors still are envelopes). */
export const FileResponse = (type: string, description: string) => ({ description, content: { [type]: { schema: Type.String() } } });

export const ok = <T>(data: T) => ({ data, error: null, success: true as const });

export const Timestamp = Type.String({ format: 'date-time', examples: ['2026-11-22T18:00:00.000Z'] });
export const Cents = (min = 0, max = Number.MAX_SAFE_INTEGER) => Type.Integer({ minimum: min, maximum: max });
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
