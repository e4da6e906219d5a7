import { Type, type Static } from 'typebox';
import { EVENT_TYPES, LISTED_EVENT_TYPES, type EventType } from '../events/event.schemas.js';
import { Nullable, StringEnum, Timestamp } from '../platform/http/envelope.js';
import { PageQuery } from '../platform/pagination.js';

const EVENT_LIST = EVENT_TYPES.join(', ');
const EventName = StringEnum(EVENT_TYPES);

export const CreateEndpointBody = Type.Object({
  url: Type.String({
    description: 'HTTPS, public, at most 2048 characters; stored and shown WHATWG-normalised. One endpoint per URL.',
    examples: ['https://shop.example.com/pix/webhooks'],
  }),
  events: Type.Array(
    // Names are checked by the service so that every events error reads `events: <reason>`.
    Type.Unsafe<EventType>({ description: `One of: ${EVENT_LIST}` }),
    { minItems: 1, maxItems: 8, uniqueItems: true, description: `1 to 8 distinct names of: ${EVENT_LIST}`, examples: [['CHARGE_PAID']] },
  ),
});
export type CreateEndpointBody = Static<typeof CreateEndpointBody>;

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const ListQuery = Type.Object(PageQuery);

const endpointFields = {
  id: Type.String({ examples: ['whk_4q2Xb9LmTz0aR8sVw1yKcD'] }),
  url: Type.String(),
  events: Type.Array(EventName),
  createdAt: Timestamp,
};
export const EndpointSchema = Type.Object(endpointFields);
export const CreatedEndpointSchema = Type.Object({
  ...endpointFields,
  secret: Type.String({ description: 'Signing secret, shown only in this answer.', examples: ['whsec_...'] }),
});

export const DeliverySchema = Type.Object({
  id: Type.String({ examples: ['dlv_8mKq2Lx0Vb7Rt4Yc1Nw9Za'] }),
  eventId: Type.String(),
  event: StringEnum(LISTED_EVENT_TYPES),
  attempt: Type.Integer({ minimum: 1, maximum: 3, description: 'Within its series: each redeliver starts again at 1.' }),
  statusCode: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when none arrived." })),
  success: Type.Boolean(),
  error: Nullable(Type.String()),
  durationMs: Type.Integer({ minimum: 0 }),
  manual: Type.Boolean({ description: 'true for a redelivery (or test) a merchant asked for; false for automatic attempts.' }),
  createdAt: Timestamp,
});

export const RedeliverBody = Type.Object({ eventId: Type.String({ minLength: 1, maxLength: 64, examples: ['evt_3kQ9xZr2Lm0aT7vB1yWcD'] }) });
export const RedeliverAnswer = Type.Object({ webhookId: Type.String(), eventId: Type.String(), queued: Type.Literal(true) });

export const RecoverBody = Type.Object({
  since: Type.String({ format: 'date-time', description: 'ISO 8601 time; events created at or after it.', examples: ['2026-11-24T00:00:00.000Z'] }),
});
export const RecoverAnswer = Type.Object({ queued: Type.Integer({ minimum: 0 }) });

export const RotateBody = Type.Object({
  expiresInSeconds: Type.Optional(Type.Integer({
    minimum: 0, maximum: 86400, default: 86400, description: 'How long the previous secret keeps signing (a second v1); 0 stops it at once.',
  })),
});
export const RotatedSecretSchema = Type.Object({
  id: Type.String(),
  secret: Type.String({ description: 'The new signing secret, shown only in this answer (and its idempotent replay).', examples: ['whsec_...'] }),
  previousSecretExpiresAt: Nullable(Timestamp),
});
