import { List, Table, Text } from '@mantine/core';
import { addDays, type CivilDate } from '../../src/calendar/index';
import {
  amountDue, effectiveDueDate, lastDayToPay, type AmountBreakdown, type DueDateTerms,
} from '../../src/charges/due-date.rules';
import type { Charge } from './api';
import { civilDay, money, percent } from './format';
import { useLang, type Dict } from './i18n';

// A due-date charge (BACEN cobv) as the dashboard shows it. Every date and amount comes from the API's own pure
// rules (src/charges/due-date.rules.ts, docs/contract/due-date-charges.md#amount-due): no arithmetic of its own.

/** The terms of a charge the API answered, or null for a charge without a due date. */
export function termsOf(c: Charge): DueDateTerms | null {
  if (c.dueDate === null || c.daysAfterDue === null) return null;
  return { amount: c.amount, dueDate: c.dueDate, daysAfterDue: c.daysAfterDue, fine: c.fine, interest: c.interest, discount: discountOf(c.discount), rebate: c.rebate };
}

/** The API's discount (`tiers` or `value`, the other null) as the rules' union. */
function discountOf(d: Charge['discount']): DueDateTerms['discount'] {
  if (!d) return null;
  if ((d.mode === 'FIXED_UNTIL' || d.mode === 'PERCENT_UNTIL') && d.tiers) return { mode: d.mode, tiers: d.tiers };
  if ((d.mode === 'AMOUNT_PER_DAY_EARLY' || d.mode === 'PERCENT_PER_DAY_EARLY') && d.value !== null && d.value !== undefined) return { mode: d.mode, value: d.value };
  return null;
}

/** A rule's value as the merchant typed it: basis points for the percentage modes, cents for the others. */
export const isPercentMode = (mode: string) => mode.startsWith('PERCENT');
const valueText = (mode: string, value: number) => (isPercentMode(mode) ? percent(value) : money(value));

/** The tier's last day: a tier dated on the due date lasts until the effective due date (the rules' `tierOn`). */
const tierEnd = (terms: DueDateTerms, date: CivilDate) => (date === terms.dueDate ? effectiveDueDate(terms.dueDate) : date);

/** The rules in the merchant's words, one line each. */
function ruleLines(terms: DueDateTerms, t: Dict, lang: string): string[] {
  const w = t.dueDate.words;
  const say = (kind: string, mode: string, value: number, date?: CivilDate) =>
    (w[kind]?.[mode] ?? mode).replace('{v}', valueText(mode, value)).replace('{d}', date ? civilDay(date, lang, true) : '');
  const lines: string[] = [];
  const { discount, fine, interest, rebate } = terms;
  if (discount && 'tiers' in discount) {
    for (const tier of [...discount.tiers].sort((a, b) => a.date.localeCompare(b.date))) lines.push(say('discount', discount.mode, tier.value, tierEnd(terms, tier.date)));
  } else if (discount) lines.push(say('discount', discount.mode, discount.value));
  if (fine) lines.push(say('fine', fine.mode, fine.value));
  if (interest) lines.push(say('interest', interest.mode, interest.value));
  if (rebate) lines.push(say('rebate', rebate.mode, rebate.value));
  return lines;
}

interface Sample {
  date: CivilDate;
  labels: string[];
  due: { amountDue: number; breakdown: AmountBreakdown };
}

/**
 * The days worth showing before the charge is created, from today to the last day to pay: today, each discount
 * tier's last day, the due date, the effective due date, the first day late and the last day to pay.
 */
export function samples(terms: DueDateTerms, today: CivilDate, t: Dict): Sample[] {
  const e = effectiveDueDate(terms.dueDate);
  const l = lastDayToPay(terms);
  const marks: Array<[CivilDate, string]> = [[today, t.dueDate.labels.today]];
  if (terms.discount && 'tiers' in terms.discount) {
    for (const tier of terms.discount.tiers) marks.push([tierEnd(terms, tier.date), t.dueDate.tierEnd(valueText(terms.discount.mode, tier.value))]);
  }
  marks.push([terms.dueDate, t.dueDate.labels.due]);
  if (e !== terms.dueDate) marks.push([e, t.dueDate.labels.effective]);
  if (addDays(e, 1) <= l) marks.push([addDays(e, 1), t.dueDate.labels.late]);
  marks.push([l, t.dueDate.labels.last]);
  const byDay = new Map<CivilDate, string[]>();
  for (const [date, label] of marks) {
    if (date < today || date > l) continue;
    const labels = byDay.get(date) ?? [];
    if (!labels.includes(label)) labels.push(label);
    byDay.set(date, labels);
  }
  // Every day kept is on or before L: each has an amount due.
  return [...byDay.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([date, labels]) => ({ date, labels, due: amountDue(terms, date)! }));
}

const SIGNS = [['rebate', '−'], ['discount', '−'], ['fine', '+'], ['interest', '+']] as const;

/** The parts of an amount after the original that are not zero, in the rules' order: their name and `− R$ 10,00`. */
const changes = (b: AmountBreakdown, t: Dict): Array<[string, string]> =>
  SIGNS.filter(([k]) => b[k]).map(([k, sign]) => [t.dueDate.parts[k], `${sign} ${money(b[k])}`]);

/** `R$ 1.000,00 − R$ 10,00 abatimento + R$ 20,00 multa`: the parts that are not zero. */
const breakdownText = (b: AmountBreakdown, t: Dict): string =>
  [money(b.original), ...changes(b, t).map(([name, signed]) => `${signed} ${name.toLowerCase()}`)].join(' ');

/** The sample days as a table that fits a phone: the day and what it is on the left, the amount on the right. */
export function SampleTable({ rows }: { rows: Sample[] }) {
  const { t, lang } = useLang();
  return (
    <Table data-testid="due-samples" verticalSpacing="xs">
      <Table.Thead>
        <Table.Tr><Table.Th>{t.dueDate.paidOn}</Table.Th><Table.Th ta="right">{t.dueDate.amountDue}</Table.Th></Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((r) => (
          <Table.Tr key={r.date} data-sample-date={r.date}>
            <Table.Td>
              <Text size="sm" fw={500}>{civilDay(r.date, lang, true)}</Text>
              <Text size="xs" c="dimmed">{r.labels.join(' · ')}</Text>
              <Text size="xs" c="dimmed" data-testid="sample-breakdown">{breakdownText(r.due.breakdown, t)}</Text>
            </Table.Td>
            <Table.Td ta="right" style={{ whiteSpace: 'nowrap', verticalAlign: 'top' }}>
              <Text fw={700} data-testid="sample-amount">{money(r.due.amountDue)}</Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** An amount and its parts (the API's `breakdown` or `paidBreakdown`), zeros left out. */
export function Breakdown({ total, parts, testId }: { total: number; parts: AmountBreakdown; testId: string }) {
  const { t } = useLang();
  const rows: Array<[string, string]> = [[t.dueDate.parts.original, money(parts.original)], ...changes(parts, t)];
  return (
    <Table data-testid={testId} withRowBorders={false} verticalSpacing={2}>
      <Table.Tbody>
        {rows.map(([k, v]) => <Table.Tr key={k}><Table.Td>{k}</Table.Td><Table.Td ta="right">{v}</Table.Td></Table.Tr>)}
        <Table.Tr style={{ borderTop: '1px solid var(--mantine-color-gray-4)' }}>
          <Table.Td fw={700}>{t.dueDate.total}</Table.Td><Table.Td ta="right" fw={700} data-testid={`${testId}-total`}>{money(total)}</Table.Td>
        </Table.Tr>
      </Table.Tbody>
    </Table>
  );
}

/** The rules as a list, or the sentence that there are none. */
export function RuleList({ terms }: { terms: DueDateTerms }) {
  const { t, lang } = useLang();
  const lines = ruleLines(terms, t, lang);
  if (!lines.length) return <Text size="sm">{t.dueDate.noRules}</Text>;
  return <List size="sm" spacing={2} data-testid="due-rules">{lines.map((l) => <List.Item key={l}>{l}</List.Item>)}</List>;
}
