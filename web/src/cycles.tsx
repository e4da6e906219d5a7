import { List, Stack, Text } from '@mantine/core';
import { isCivilDate, saoPauloDate, type CivilDate } from '../../src/calendar/index';
import { cycleDueDate, hasCycle, lastCycle, nominalCycleDate, type Frequency } from '../../src/subscriptions/cycle.rules';
import { civilDay } from './format';
import { useLang } from './i18n';

/** Today in São Paulo: the day every date rule of the API counts from. */
export const spToday = (): CivilDate => saoPauloDate(new Date());

/** A date typed in a form, when it is a real `YYYY-MM-DD` day. */
export const asDay = (text: string | null | undefined): CivilDate | null => (text && isCivilDate(text) ? text : null);

/**
 * A subscription's next due dates, computed by the API's own rule (src/subscriptions/cycle.rules.ts,
 * docs/contract/subscriptions.md#cycle-charges): whole periods from startDate, moved to the next business day.
 * A moved date says where it would have fallen; the list ends with the last cycle, or says it goes on.
 */
export function CycleDates({ startDate, frequency, endDate, from = 0, count = 4, testId }: {
  startDate: CivilDate; frequency: Frequency; endDate: CivilDate | null; from?: number; count?: number; testId?: string;
}) {
  const { t, lang } = useLang();
  const last = lastCycle(startDate, frequency, endDate);
  const shown: number[] = [];
  for (let n = from; shown.length < count && hasCycle(startDate, frequency, endDate, n); n++) shown.push(n);
  if (!shown.length) return null;
  const after = last === null ? null : last - shown[shown.length - 1]!;
  return (
    <Stack gap={4}>
      <List size="sm" spacing={4} data-testid={testId}>
        {shown.map((n) => {
          const nominal = nominalCycleDate(startDate, frequency, n);
          const due = cycleDueDate(startDate, frequency, n);
          return (
            <List.Item key={n} data-due={due}>
              <Text span size="sm" fw={500}>{civilDay(due, lang, true)}</Text>
              {nominal !== due ? <Text span size="xs" c="dimmed"> ({t.subs.moved(civilDay(nominal, lang, true))})</Text> : null}
              {n === last ? <Text span size="xs" c="dimmed"> · {t.subs.lastOne}</Text> : null}
            </List.Item>
          );
        })}
      </List>
      {after === null ? <Text size="xs" c="dimmed">{t.subs.andSoOn}</Text> : after > 0 ? <Text size="xs" c="dimmed">{t.subs.more(after)}</Text> : null}
      <Text size="xs" c="dimmed">{t.subs.upcomingHint}</Text>
    </Stack>
  );
}
