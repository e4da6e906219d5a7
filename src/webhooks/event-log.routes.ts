import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, errorResponses, ListEnvelope, ok } from '../platform/http/envelope.js';
import type { Runtime } from '../runtime.js';
import { EventDetailSchema, EventIdParams, EventListQuery, EventSchema } from './event-log.schemas.js';
import { getEvent, listEvents } from './event-log.service.js';

const tags = ['events'];

/** docs/contract/webhooks.md#events-api: every event of the merchant, with its delivery counts; reads need no extra permission. */
export function eventRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.get('/events', {
      schema: { tags, querystring: EventListQuery, response: { 200: ListEnvelope(EventSchema), ...errorResponses } },
    }, async (req) => {
      const page = await listEvents(rt, req.auth!.merchant.id, req.query);
      return { ...ok(page.items), pagination: page.pagination };
    });

    app.get('/events/:id', {
      schema: { tags, params: EventIdParams, response: { 200: Envelope(EventDetailSchema), ...errorResponses } },
    }, async (req) => ok(await getEvent(rt, req.auth!.merchant.id, req.params.id)));
  };
}
