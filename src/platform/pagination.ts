import { createHmac, timingSafeEqual } from 'node:crypto';
import { Type } from 'typebox';
import type { Executor } from './db.js';
import { AppError } from './errors.js';

/** Query parameters every list takes (docs/contract/http.md#pagination). */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  // Any text is accepted here: an empty, oversized or tampered cursor is `<after|before>: invalid cursor`.
  after: Type.Optional(Type.String()),
  before: Type.Optional(Type.String()),
};

export interface PageRequest {
  limit?: number;
  after?: string;
  before?: string;
}

export interface Page<T> {
  items: T[];
  pagination: { hasMore: boolean; next: string | null; before: string | null };
}

/**
 * What a cursor is bound to: the merchant, the list, and its filters (and for deliveries the endpoint).
 * A cursor presented with any other scope fails its signature and is rejected as invalid.
 */
export type CursorScope = Record<string, unknown>;

interface Position {
  t: string; // created_at, ISO with milliseconds
  i: string; // id
}

type Direction = 'after' | 'before';

// Cursors we issue are ~100 characters; anything far longer is not one of ours.
const MAX_CURSOR_LENGTH = 512;

export class Cursors {
  constructor(private readonly key: Buffer) {}

  private sign(scope: CursorScope, dir: Direction, payload: string): Buffer {
    return createHmac('sha256', this.key).update(JSON.stringify([scope, dir, payload])).digest().subarray(0, 16);
  }

  encode(scope: CursorScope, dir: Direction, pos: Position): string {
    const payload = Buffer.from(JSON.stringify(pos)).toString('base64url');
    return `${payload}.${this.sign(scope, dir, payload).toString('base64url')}`;
  }

  decode(scope: CursorScope, dir: Direction, cursor: string): Position {
    const invalid = new AppError('VALIDATION_ERROR', `${dir}: invalid cursor`);
    if (cursor.length > MAX_CURSOR_LENGTH) throw invalid;
    const [payload, sig, extra] = cursor.split('.');
    if (!payload || !sig || extra !== undefined) throw invalid;
    const given = Buffer.from(sig, 'base64url');
    const expected = this.sign(scope, dir, payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid;
    const pos = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Position;
    if (typeof pos.t !== 'string' || typeof pos.i !== 'string' || Number.isNaN(Date.parse(pos.t))) throw invalid;
    return pos;
  }
}

export interface KeysetQuery {
  /** `SELECT ... FROM t WHERE <filters>` (a WHERE clause is required) with filters bound as $1..$n; no ORDER BY or LIMIT. */
  sql: string;
  params: unknown[];
  /** The table alias or name whose created_at and id order the list, e.g. `c`. */
  alias?: string;
}

/**
 * Keyset pagination, newest first by (created_at, id): items inserted while paging never shift a
 * page, so nothing is skipped or repeated. Paging backward reads ascending from the cursor and
 * reverses, so forward-then-back returns exactly the earlier page.
 */
export async function keysetPage<Row extends { id: string; created_at: Date }>(
  db: Executor,
  cursors: Cursors,
  scope: CursorScope,
  query: KeysetQuery,
  page: PageRequest,
): Promise<Page<Row>> {
  if (page.after !== undefined && page.before !== undefined) throw new AppError('VALIDATION_ERROR', 'before: cannot be combined with after');
  const limit = page.limit ?? 20;
  const dir: Direction = page.before !== undefined ? 'before' : 'after';
  const cursor = page.before ?? page.after;
  const pos = cursor !== undefined ? cursors.decode(scope, dir, cursor) : null;
  const col = (c: string) => (query.alias ? `${query.alias}.${c}` : c);
  // Ties within one millisecond go by id in byte order, whatever collation the database was created with.
  const id = `${col('id')} COLLATE "C"`;
  const params = [...query.params];
  let sql = query.sql;
  // The cursor's position is bound right after the list's own filters, here and in the EXISTS below.
  const n = query.params.length;
  const beyond = (op: '<' | '>') => ` AND (${col('created_at')}, ${id}) ${op} ($${n + 1}::timestamptz, $${n + 2})`;
  if (pos) {
    params.push(pos.t, pos.i);
    sql += beyond(dir === 'after' ? '<' : '>');
  }
  const order = dir === 'after' ? 'DESC' : 'ASC';
  params.push(limit + 1);
  sql += ` ORDER BY ${col('created_at')} ${order}, ${id} ${order} LIMIT $${params.length}`;
  const { rows } = await db.query<Row>(sql, params);
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  if (dir === 'before') items.reverse();
  const at = (row: Row | undefined, d: Direction) => (row ? cursors.encode(scope, d, { t: row.created_at.toISOString(), i: row.id }) : null);
  const first = items[0];
  const last = items[items.length - 1];
  if (pos && !first) {
    // An empty page past a cursor (what was there left the filter, e.g. a PENDING charge was paid) still
    // points back the way it came when something lies there. Its cursor sits just on this side of the
    // cursor's own item (no listed item lies in between, or this page would not be empty), so paging
    // back from it shows that item again.
    const edge = { t: pos.t, i: dir === 'after' ? '' : `${pos.i}\u007f` };
    const { rows: [there] } = await db.query<{ found: boolean }>(
      `SELECT EXISTS (${query.sql}${beyond(dir === 'after' ? '>' : '<')}) AS found`, [...query.params, edge.t, edge.i],
    );
    const turned = there?.found ? cursors.encode(scope, dir === 'after' ? 'before' : 'after', edge) : null;
    return { items, pagination: { hasMore: false, next: dir === 'after' ? null : turned, before: dir === 'after' ? turned : null } };
  }
  return {
    items,
    pagination: {
      hasMore,
      next: dir === 'after' ? (hasMore ? at(last, 'after') : null) : at(last, 'after'),
      before: dir === 'after' ? (pos ? at(first, 'before') : null) : hasMore ? at(first, 'before') : null,
    },
  };
}
