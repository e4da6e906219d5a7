import { parseReais } from '../../src/public-pages/reais.rules';

const TZ = 'America/Sao_Paulo';
const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/** `R$ 1.234,56` from integer cents, whatever the interface language (it is Brazilian money). */
export const money = (cents: number | null | undefined): string =>
  cents === null || cents === undefined ? '—' : brl.format(cents / 100).replace(/\u00a0/g, ' ');

const dateTime = new Map<string, Intl.DateTimeFormat>();
const compact = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL', notation: 'compact', maximumFractionDigits: 1 });
/** `R$ 1,4 mil` for a chart axis, from reais. */
export const moneyCompact = (reais: number): string => compact.format(reais).replace(/\u00a0/g, ' ');

/** A timestamp in São Paulo time, `25/11/2026 16:53`. */
export function when(iso: string | null | undefined, locale = 'pt-BR'): string {
  if (!iso) return '—';
  let f = dateTime.get(locale);
  if (!f) dateTime.set(locale, f = new Intl.DateTimeFormat(locale, { timeZone: TZ, dateStyle: 'short', timeStyle: 'short' }));
  return f.format(new Date(iso));
}

const civil = new Map<string, Intl.DateTimeFormat>();
/**
 * A calendar day (`2026-02-02`, a due date: no time, no zone) as people read it: `02/02/2026`, or `seg., 02/02/2026`
 * with its weekday. Formatted at noon UTC so no zone moves it to the day before.
 */
export function civilDay(date: string | null | undefined, locale = 'pt-BR', withWeekday = false): string {
  if (!date) return '—';
  const key = `${locale}|${withWeekday}`;
  let f = civil.get(key);
  if (!f) civil.set(key, f = new Intl.DateTimeFormat(locale, { timeZone: 'UTC', day: '2-digit', month: '2-digit', year: 'numeric', ...(withWeekday ? { weekday: 'short' } : {}) }));
  return f.format(new Date(`${date}T12:00:00Z`));
}

/** `25/11` from `2026-11-25`. */
export const dayLabel = (date: string) => `${date.slice(8, 10)}/${date.slice(5, 7)}`;

/**
 * Reais typed by a person (`1.234,56`, `1234.56`, `12`) to exact cents, never through a float; null when it is not an
 * amount. The one parser: the link page reads a payer's amount with it too.
 */
export { parseReais };

/**
 * A percentage typed by a person (`2,50 %`, `2,5`, `0.33%`) to basis points (250), exact: two decimals of a
 * percent are cents of a real, so it is the reais parser's reading. Null when it is not one.
 */
export const parsePercent = (typed: string): number | null => parseReais(typed.trim().replace(/\s*%$/, ''));

/** `2,50 %` from basis points. */
export const percent = (bps: number): string => `${Math.trunc(bps / 100)},${String(bps % 100).padStart(2, '0')} %`;

/** The API gives PNGs as data URLs (`imageBase64`, `qrImageBase64`); a bare base64 is accepted too. */
export const pngSrc = (b64: string) => (b64.startsWith('data:') ? b64 : `data:image/png;base64,${b64}`);
