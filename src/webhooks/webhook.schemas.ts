import { Type, type Static } from 'typebox';
import { EVENT_TYPES, type EventType } from '../events/events.js';
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
  event: EventName,
  attempt: Type.Integer({ minimum: 1, maximum: 3 }),
  statusCode: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when none arrived." })),
  success: Type.Boolean(),
  error: Nullable(Type.String()),
  durationMs: Type.Integer({ minimum: 0 }),
  createdAt: Timestamp,
});
