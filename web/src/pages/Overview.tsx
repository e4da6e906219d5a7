import { BarChart } from '@mantine/charts';
import { Anchor, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Link } from 'wouter';
import { api, ApiError, type ChargeListItem, type DailyLine, type Page, type Store, type Subscription } from '../api';
import { Loading, PageHeader, useLoad } from '../components';
import { saoPauloDate } from '../../../src/calendar/index';
import { dayLabel, money, moneyCompact } from '../format';
import { useT } from '../i18n';

const DAY = 86_400_000;
/** Active subscriptions counted on the Overview; above this it says "100+" (one page of the list). */
const SUBSCRIPTIONS_COUNTED = 100;

/** The 30 São Paulo days ending today. */
function lastDays(): string[] {
  const days: string[] = [];
  for (let i = 29; i >= 0; i--) days.push(saoPauloDate(new Date(Date.now() - i * DAY)));
  return [...new Set(days)];
}

/**
 * Money received per day: the statement's daily credits (docs/contract/statement.md#daily-summary); where that route does not
 * exist (404), the paid charges of the period, paged newest first until they are older than the window.
 */
async function receivedPerDay(): Promise<{ days: Array<{ date: string; received: number }>; fromCharges: boolean }> {
  const days = lastDays();
  try {
    const daily = await api.get<DailyLine[]>(`/me/statement/daily?from=${days[0]}&to=${days[days.length - 1]}`);
    const byDate = new Map(daily.map((d) => [d.date, d.credits]));
    return { days: days.map((date) => ({ date, received: byDate.get(date) ?? 0 })), fromCharges: false };
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 404) throw e;
  }
  const sums = new Map(days.map((d) => [d, 0]));
  const since = Date.now() - 31 * DAY;
  let after = '';
  for (let page = 0; page < 20; page++) {
    const res: Page<ChargeListItem> = await api.page<ChargeListItem>(`/transparents/list?limit=100${after}`);
    for (const c of res.data) {
      if (!c.paidAt) continue;
      const d = saoPauloDate(new Date(c.paidAt));
      if (sums.has(d)) sums.set(d, sums.get(d)! + c.amount);
    }
    const last = res.data[res.data.length - 1];
    if (!res.pagination.next || !last || Date.parse(last.createdAt) < since) break;
    after = `&after=${encodeURIComponent(res.pagination.next)}`;
  }
  return { days: days.map((date) => ({ date, received: sums.get(date) ?? 0 })), fromCharges: true };
}

function BalanceCard({ label, hint, cents, testId }: { label: string; hint: string; cents: number; testId: string }) {
  return (
    <Paper withBorder p="md">
      <Text size="sm" c="dimmed">{label}</Text>
      <Text fz={28} fw={700} data-testid={testId}>{money(cents)}</Text>
      <Text size="xs" c="dimmed">{hint}</Text>
    </Paper>
  );
}

export function Overview() {
  const t = useT();
  const store = useLoad(() => api.get<Store>('/me/store'), []);
  const chart = useLoad(receivedPerDay, []);
  const active = useLoad(() => api.page<Subscription>(`/subscriptions?status=ACTIVE&limit=${SUBSCRIPTIONS_COUNTED}`), []);
  if (!store.data) return <Loading error={store.error} />;
  const b = store.data.balance;
  const total = chart.data?.days.reduce((s, d) => s + d.received, 0) ?? 0;
  return (
    <Stack>
      <PageHeader title={store.data.name ?? t.overview.title} />
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <BalanceCard label={t.overview.available} hint={t.overview.availableHint} cents={b.available} testId="balance-available" />
        <BalanceCard label={t.overview.pending} hint={t.overview.pendingHint} cents={b.pending} testId="balance-pending" />
        <BalanceCard label={t.overview.blocked} hint={t.overview.blockedHint} cents={b.blocked} testId="balance-blocked" />
      </SimpleGrid>
      {active.data ? (
        <Paper withBorder p="md">
          <Group justify="space-between" wrap="wrap" gap="xs">
            <Text size="sm">{t.overview.activeSubscriptions}: <b data-testid="active-subscriptions">{active.data.data.length}{active.data.pagination.hasMore ? '+' : ''}</b></Text>
            <Anchor component={Link} href="/subscriptions" size="sm">{t.overview.seeSubscriptions}</Anchor>
          </Group>
        </Paper>
      ) : null}
      <Paper withBorder p="md">
        <Title order={2} size="h4">{t.overview.chart}</Title>
        <Text size="sm" c="dimmed" mb="sm">
          {t.overview.totalReceived}: <b data-testid="received-total">{money(total)}</b>
          {chart.data?.fromCharges ? ` (${t.overview.fromCharges})` : ''}
        </Text>
        {chart.data ? (
          <BarChart h={240} data={chart.data.days.map((d) => ({ day: dayLabel(d.date), [t.overview.received]: d.received / 100 }))}
            dataKey="day" series={[{ name: t.overview.received, color: 'teal.6' }]}
            valueFormatter={(v) => money(Math.round(v * 100))} yAxisProps={{ width: 88, tickFormatter: (v: number) => moneyCompact(v) }} tickLine="y" />
        ) : <Loading error={chart.error} />}
      </Paper>
    </Stack>
  );
}
