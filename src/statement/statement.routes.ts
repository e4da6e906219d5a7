import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requirePermission } from '../auth/permission.rules.js';
import { Envelope, errorResponses, FileResponse, ListEnvelope, ok } from '../platform/http/envelope.js';
import { endWhenStalled } from '../platform/http/stall.js';
import type { Runtime } from '../runtime.js';
import { CsvQuery, DailyQuery, DailySummary, OfxQuery, StatementLine, StatementQuery } from './statement.schemas.js';
import { dailySummary, listStatement, timeRange } from './statement.service.js';
import { exportInChild } from './statement-export.service.js';

const tags = ['statement'];
const read = requirePermission('read');

/**
 * docs/contract/statement.md#statement: the statement (extrato) of each account, its exports (one at a time per merchant,
 * ended when their client stalls: docs/contract/statement.md#exports) and the daily summary.
 */
export function statementRoutes(rt: Runtime) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

    app.get('/me/statement', {
      onRequest: read,
      schema: { tags, querystring: StatementQuery, response: { 200: ListEnvelope(StatementLine), ...errorResponses } },
    }, async (req) => {
      const page = await listStatement(rt, req.auth!.merchant.id, req.query);
      return { ...ok(page.items), pagination: page.pagination };
    });

    app.get('/me/statement.csv', {
      onRequest: read,
      schema: { tags, querystring: CsvQuery, response: { 200: FileResponse('text/csv', 'The lines, oldest first (RFC 4180, UTF-8)'), ...errorResponses } },
    }, async (req, reply) => {
      const range = timeRange(req.query.from, req.query.to);
      const account = req.query.account ?? 'available';
      const file = await exportInChild(rt, { format: 'csv', merchantId: req.auth!.merchant.id, account, range });
      endWhenStalled(reply.raw, file, rt.config.exportStallTimeoutMs);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="statement-${account}.csv"`)
        .send(file);
    });

    app.get('/me/statement.ofx', {
      onRequest: read,
      schema: { tags, querystring: OfxQuery, response: { 200: FileResponse('application/x-ofx', 'OFX 2.1.1 bank statement of the available account'), ...errorResponses } },
    }, async (req, reply) => {
      const range = timeRange(req.query.from, req.query.to);
      const file = await exportInChild(rt, { format: 'ofx', merchantId: req.auth!.merchant.id, account: 'available', range });
      endWhenStalled(reply.raw, file, rt.config.exportStallTimeoutMs);
      return reply
        .type('application/x-ofx; charset=utf-8')
        .header('content-disposition', 'attachment; filename="statement.ofx"')
        .send(file);
    });

    app.get('/me/statement/daily', {
      onRequest: read,
      schema: { tags, querystring: DailyQuery, response: { 200: Envelope(Type.Array(DailySummary)), ...errorResponses } },
    }, async (req) => ok(await dailySummary(rt, req.auth!.merchant.id, req.query)));
  };
}
