import type { Executor } from '../platform/db.js';
import { validationError } from '../platform/errors.js';
import { keysetPage, type Page } from '../platform/pagination.js';
import type { Runtime } from '../runtime.js';
import type { DailyInput, DailySummaryView, StatementAccount, StatementInput, StatementLineView } from './statement.schemas.js';
import {
  ACCOUNT_KIND, balanceBefore, foldPending, pageQuery, selectBatch, selectDaily, type LineRow, type Range,
} from './statement.sql.js';
import { toLineView } from './statement.view.js';

/** `from` inclusive, `to` exclusive (ISO times, already format-checked); either may be left out. */
export function timeRange(from: string | undefined, to: string | undefined): Range {
  if (from !== undefined && to !== undefined && Date.parse(to) < Date.parse(from)) throw validationError('to', 'must not be before from');
  return { from: from ?? '-infinity', to: to ?? 'infinity' };
}

/** GET /me/statement: one page, newest first. Pending credits are folded first, so the page ends at the balance. */
export async function listStatement(rt: Runtime, merchantId: string, q: StatementInput): Promise<Page<StatementLineView>> {
  const account = q.account ?? 'available';
  const range = timeRange(q.from, q.to);
  await foldPending(rt.pool, merchantId, ACCOUNT_KIND[account]);
  const scope = { merchantId, list: 'statement', account, from: q.from ?? null, to: q.to ?? null };
  const page = await keysetPage<LineRow>(rt.pool, rt.cursors, scope, pageQuery(merchantId, ACCOUNT_KIND[account], range), q);
  return { items: page.items.map((r) => toLineView(r, account, merchantId)), pagination: page.pagination };
}

/** Rows per query of an export: memory stays at one batch whatever the length of the statement. */
export const EXPORT_BATCH = 2000;

/** Every line of [from, to), oldest first, a batch at a time, read by keyset in short queries (no long transaction). */
export async function* exportBatches(
  db: Executor, merchantId: string, account: StatementAccount, range: Range, batch = EXPORT_BATCH,
): AsyncGenerator<StatementLineView[]> {
  const kind = ACCOUNT_KIND[account];
  await foldPending(db, merchantId, kind);
  let after: { at: Date | string; id: string } = { at: '-infinity', id: '' };
  for (;;) {
    const rows = await selectBatch(db, merchantId, kind, range, after, batch);
    if (rows.length) yield rows.map((row) => toLineView(row, account, merchantId));
    const last = rows[rows.length - 1];
    if (!last || rows.length < batch) return;
    after = { at: last.created_at, id: last.id };
  }
}

/** The available balance at `to` (exclusive): the OFX LEDGERBAL. */
export const availableBalanceAt = (db: Executor, merchantId: string, to: string) => balanceBefore(db, merchantId, ACCOUNT_KIND.available, to);

/** The longest range GET /me/statement/daily answers, in days. */
export const MAX_DAILY_DAYS = 366;
const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function parseDay(field: string, value: string): number {
  const ms = DAY.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) throw validationError(field, 'must be a date YYYY-MM-DD');
  return ms;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const saoPauloToday = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());

/** GET /me/statement/daily: per local day, opening, credits, debits and closing of the available account. */
export async function dailySummary(rt: Runtime, merchantId: string, q: DailyInput): Promise<DailySummaryView[]> {
  const to = parseDay('to', q.to ?? saoPauloToday());
  const from = q.from !== undefined ? parseDay('from', q.from) : to - 29 * DAY_MS;
  if (to < from) throw validationError('to', 'must not be before from');
  if ((to - from) / DAY_MS + 1 > MAX_DAILY_DAYS) throw validationError('from', `the range is at most ${MAX_DAILY_DAYS} days`);
  await foldPending(rt.pool, merchantId, ACCOUNT_KIND.available);
  const rows = await selectDaily(rt.pool, merchantId, isoDay(from), isoDay(to));
  let balance = rows[0]?.opening ?? 0;
  return rows.map((r) => {
    const opening = balance;
    balance = opening + r.credits - r.debits;
    return { date: r.day, opening, credits: r.credits, debits: r.debits, closing: balance };
  });
}
