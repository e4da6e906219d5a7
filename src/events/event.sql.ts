import { SqlParams, type Executor, type Tx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { callbackUrlKey, deliveriesDue, firstAttemptsOf, targetsOf, waitingColumns } from './event-fanout.sql.js';
import type { EventType } from './event.schemas.js';

export interface NewEvent {
  merchantId: string;
  type: EventType;
  /** The payload's `data`, already in its API shape (docs/contract/webhooks.md#event-payloads). */
  data: unknown;
  /** A withdrawal's clientCallbackUrl (normalised): its events go only to that endpoint. */
  callbackUrl?: string | null;
}

/** An ISO-8601 UTC timestamp in SQL, exactly as Date.prototype.toISOString() writes it (now_ms() keeps milliseconds). */
const isoSql = (expr: string): string => `to_char((${expr}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The text of `JSON.stringify(data)` cut around the top-level string fields named in `times`, whose
 * values only SQL knows (timestamps of a row inserted in the same statement): parts[0], the first such
 * field's value, parts[1], … Key order is kept; `exprs` are the SQL expressions in that order.
 */
function jsonAround(data: unknown, times: Record<string, string>): { parts: string[]; exprs: string[] } {
  if (Object.keys(times).length === 0) return { parts: [JSON.stringify(data)], exprs: [] };
  const parts: string[] = [];
  const exprs: string[] = [];
  let text = '{';
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (value === undefined) continue;
    text += `${text === '{' ? '' : ','}${JSON.stringify(key)}:`;
    const expr = times[key];
    if (expr === undefined) {
      text += JSON.stringify(value);
    } else {
      parts.push(`${text}"`);
      exprs.push(expr);
      text = '"';
    }
  }
  parts.push(`${text}}`);
  return { parts, exprs };
}

/**
 * The ids of events recorded together, in the order they happened: random, then sorted, so that within one
 * transaction — whose events share their createdAt — a later event has the greater id and lists first, newest
 * first by (createdAt, id) in byte order (docs/contract/webhooks.md#events-api).
 */
const orderedEventIds = (n: number): string[] =>
  Array.from({ length: n }, () => newId('evt')).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * CTEs, among them `event` (the INSERT of `events`, in order) and `fanout` (their webhook deliveries: one row,
 * `due`), to put in a statement; the query must read `fanout`, and hand its `due` to deliveriesDue(db, due)
 * so that a dispatcher takes them once the statement's transaction commits. `render` adds their parameters
 * to the statement's after those it already has. `times` (field → SQL expression over `from`) leaves timestamp
 * fields of `data` to SQL. Each delivery body is serialised once, here, so every attempt sends the same bytes
 * and `data` keeps its API key order; its createdAt is the transaction's own clock (now_ms(), as every other
 * row of the state change carries it). The ids are drawn once, so a retried transaction records the same events.
 */
export function eventCtes(
  events: NewEvent[], o: { times?: Record<string, string>; from?: string } = {},
): { ids: string[]; render(params: SqlParams): string } {
  const ids = orderedEventIds(events.length);
  const render = (params: SqlParams): string => {
    const p = (value: unknown) => params.add(value);
    const rows = events.map((event, n) => {
      const { parts, exprs } = jsonAround(event.data, o.times ?? {});
      const data = parts.map((part, i) => `${p(part)}::text${i < exprs.length ? ` || ${isoSql(exprs[i]!)}` : ''}`).join(' || ');
      const head = `${JSON.stringify({ id: ids[n], event: event.type }).slice(0, -1)},"createdAt":"`;
      const callbackUrl = event.callbackUrl ? callbackUrlKey(event.callbackUrl) : null;
      return `SELECT ${n} AS n, ${p(ids[n])}::text AS id, ${p(event.merchantId)}::text AS merchant_id, ${p(event.type)}::text AS type,
           ${p(callbackUrl)}::text AS callback_url, ${p(head)}::text AS head, ${data} AS data${o.from ? ` FROM ${o.from}` : ''}`;
    });
    // event_to is read twice (the counts and the fan-out), so it is computed once and both see the same endpoints.
    // The body is the one copy of the payload (the jsonb `data` column of older releases is no longer written).
    return `event_in AS (${rows.join('\n       UNION ALL ')}),
     event_to AS (${targetsOf('event_in')}),
     event AS (
       INSERT INTO events (id, merchant_id, type, callback_url, body, pending)
       SELECT e.id, e.merchant_id, e.type, e.callback_url, e.head || ${isoSql('now_ms()')} || '","data":' || e.data || '}',
              (SELECT count(*) FROM event_to t WHERE t.n = e.n)
       FROM event_in e ORDER BY e.n
       RETURNING id, created_at),
     event_pairs AS (
       INSERT INTO event_endpoints (event_id, endpoint_id, merchant_id, event_created_at, due_at, due_attempt, slow_lane)
       SELECT t.event_id, t.endpoint_id, t.merchant_id, e.created_at, ${waitingColumns('t.slow')} FROM event_to t JOIN event e ON e.id = t.event_id),
     fanout AS (${firstAttemptsOf('event_to')})`;
  };
  return { ids, render };
}

/**
 * Records events in the transaction of the state change that causes them, so an event exists if and
 * only if the change committed; their webhook deliveries fan out in the same statement, and a dispatcher
 * is woken for them after the commit.
 */
export async function emitEvents(tx: Tx, events: NewEvent[]): Promise<string[]> {
  const { ids, render } = eventCtes(events);
  const params = new SqlParams();
  const { rows } = await tx.query<{ due: number }>(`WITH ${render(params)} SELECT due FROM fanout`, params.values);
  deliveriesDue(tx, rows[0]!.due);
  return ids;
}

export const emitEvent = async (tx: Tx, event: NewEvent): Promise<string> => (await emitEvents(tx, [event]))[0]!;

/** One batch of the retention sweep; their event_endpoints and webhook_deliveries rows go by cascade. */
export async function deleteEventsBefore(db: Executor, days: number, batch: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < now() - make_interval(days => $1) LIMIT $2)`,
    [days, batch],
  );
  return rowCount ?? 0;
}
