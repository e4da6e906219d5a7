export {
  addDays,
  addMonths,
  daysBetween,
  daysInMonth,
  fromDayNumber,
  isCivilDate,
  toDayNumber,
  weekday,
  type CivilDate,
} from './civil-date.rules.js';
export { bankHolidays, easterSunday, isBusinessDay, nextBusinessDay } from './business-day.rules.js';
export { SAO_PAULO, saoPauloDate, saoPauloDayEnd, saoPauloDayStart } from './sao-paulo.rules.js';
