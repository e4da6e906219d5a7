import { addDays, toDayNumber, type CivilDate } from './civil-date.rules.js';

/** The time zone of every date rule ("today or later in America/Sao_Paulo": docs/contract/due-date-charges.md#due-date-charges). */
export const SAO_PAULO = 'America/Sao_Paulo';

const DAY_MS = 86_400_000;

// The zone's rules come from the runtime's time-zone database (Node's ICU, the browser's), so a future
// change of Brazil's offset or a return of daylight saving time needs no change here.
const wallClock = new Intl.DateTimeFormat('en-US', {
  timeZone: SAO_PAULO,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

function localParts(ms: number): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number> {
  const out = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of wallClock.formatToParts(ms)) {
    if (part.type in out) out[part.type as keyof typeof out] = Number(part.value);
  }
  return out;
}

// The day of the last whole second asked about: "today" is asked on every charge create, and formatToParts costs
// ≈ 10 µs. Every offset in the time-zone database is a whole number of seconds, so a second never spans two days.
let last = { second: NaN, date: '' };

/** The São Paulo calendar day of an instant: "today" there when `instant` is now. */
export function saoPauloDate(instant: Date): CivilDate {
  const second = Math.floor(instant.getTime() / 1000);
  if (second === last.second) return last.date;
  const { year, month, day } = localParts(instant.getTime());
  const date = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  last = { second, date };
  return date;
}

/** São Paulo wall-clock time minus UTC at an instant, in milliseconds (−3 h since 2019). */
function offsetAt(ms: number): number {
  const p = localParts(ms);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - (ms - (((ms % 1000) + 1000) % 1000));
}

/**
 * The first instant of a São Paulo day. The offset at UTC midnight of that date gives a first guess; the
 * offset at the guess corrects it when a clock change lies between. When the two differ, midnight was
 * skipped (daylight saving began at 00:00, as it did in Brazil until 2019) or an hour before it repeated
 * (it ended at 00:00): either way the day starts at the later of the two.
 */
export function saoPauloDayStart(date: CivilDate): Date {
  const utcMidnight = toDayNumber(date) * DAY_MS;
  const first = utcMidnight - offsetAt(utcMidnight);
  const second = utcMidnight - offsetAt(first);
  return new Date(Math.max(first, second));
}

/**
 * The end of a São Paulo day: its last millisecond, so that the São Paulo date of the instant is that day.
 * A deadline there is past when `deadline <= now`, one millisecond before the next day starts.
 */
export const saoPauloDayEnd = (date: CivilDate): Date => new Date(saoPauloDayStart(addDays(date, 1)).getTime() - 1);
