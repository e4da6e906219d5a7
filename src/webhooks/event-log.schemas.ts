import { Type, type Static } from 'typebox';
import { StringEnum, Timestamp } from '../platform/http/envelope.js';
import { PageQuery } from '../platform/pagination.js';
import { DeliverySchema } from './webhook.schemas.js';
import { LISTED_EVENT_TYPES } from '../events/event.schemas.js';

export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;

export const EventListQuery = Type.Object({
  type: Type.Optional(StringEnum(LISTED_EVENT_TYPES)),
  deliveryStatus: Type.Optional({
    ...StringEnum(DELIVERY_STATUSES),
    description: 'FAILED: some endpoint\'s delivery ended without a 2xx; PENDING: some delivery has attempts to come; SUCCEEDED: every delivery got a 2xx. An event that went to no endpoint matches none.',
  }),
  ...PageQuery,
});
export type EventListQuery = Static<typeof EventListQuery>;

export const EventIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

const eventFields = {
  id: Type.String({ examples: ['evt_3kQ9xZr2Lm0aT7vB1yWcD'] }),
  type: StringEnum(LISTED_EVENT_TYPES),
  createdAt: Timestamp,
  data: Type.Unknown({ description: 'Exactly the `data` of the payload that was signed and sent.' }),
  deliveries: Type.Object({
    pending: Type.Integer({ minimum: 0 }),
    succeeded: Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0 }),
  }, { description: 'Counts over the endpoints the event went to (the state of each endpoint\'s latest series of attempts).' }),
};
export const EventSchema = Type.Object(eventFields);
export const EventDetailSchema = Type.Object({
  ...eventFields,
  attempts: Type.Array(DeliverySchema, { description: 'Every delivery attempt of the event, to any endpoint, oldest first.' }),
});
