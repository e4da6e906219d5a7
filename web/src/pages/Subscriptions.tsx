import { useState } from 'react';
import { Button, Group, NativeSelect, Paper, Stack, Text } from '@mantine/core';
import { Link } from 'wouter';
import { query, type Subscription } from '../api';
import { Empty, Loading, PageHeader, StatusBadge, usePaged } from '../components';
import { ResponsiveTable } from '../table';
import { civilDay, money } from '../format';
import { useLang, type Dict } from '../i18n';
import { useSession } from '../session';

const STATUSES = ['CREATED', 'ACTIVE', 'REJECTED', 'EXPIRED', 'CANCELLED', 'COMPLETED'];

/** What each cycle charges: `R$ 29,90`, or `variável, mín. R$ 10,00`. */
export const amountLine = (s: Pick<Subscription, 'amount' | 'minAmount'>, t: Dict) =>
  s.amount !== null ? money(s.amount) : t.subs.variable(money(s.minAmount));

/** The subscription's state in the merchant's words. */
export function SubscriptionStatus({ status }: { status: string }) {
  const t = useLang().t;
  return <StatusBadge status={status} label={t.subs.statuses[status] ?? status} />;
}

export function Subscriptions() {
  const { t, lang } = useLang();
  const { can } = useSession();
  const [status, setStatus] = useState('');
  const list = usePaged<Subscription>((c) => `/subscriptions${query({ status, limit: 20 })}${c ? `${status ? '&' : '?'}${c}` : ''}`, [status]);
  return (
    <Stack>
      <PageHeader title={t.subs.title}>
        {can('operate') ? <Button component={Link} href="/subscriptions/new">{t.subs.new}</Button> : null}
      </PageHeader>
      <Text c="dimmed" size="sm">{t.subs.intro}</Text>
      <Paper withBorder p="md">
        <Group align="flex-end">
          <NativeSelect label={t.subs.statusFilter} value={status} onChange={(e) => setStatus(e.currentTarget.value)}
            data={[{ value: '', label: t.common.all }, ...STATUSES.map((s) => ({ value: s, label: t.subs.statuses[s] ?? s }))]} />
        </Group>
      </Paper>
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <Empty /> : (
        <ResponsiveTable rows={list.items} rowKey={(s) => s.id} testId="subscriptions-table" rowAttrs={(s) => ({ 'data-subscription-id': s.id })} columns={[
          { label: t.subs.customer, render: (s) => (
            <Stack gap={0}>
              <Text size="sm" fw={600}>{s.customer.name ?? s.customer.email}</Text>
              <Text size="xs" c="dimmed">{s.contract}</Text>
            </Stack>
          ) },
          { label: t.common.status, render: (s) => <SubscriptionStatus status={s.status} /> },
          { label: t.subs.amount, render: (s) => <Text size="sm" fw={500}>{amountLine(s, t)}</Text> },
          { label: t.subs.frequency, render: (s) => <Text size="sm">{t.subs.frequencies[s.frequency] ?? s.frequency}</Text> },
          { label: t.subs.nextDue, render: (s) => <Text size="sm">{civilDay(s.nextDueDate, lang)}</Text> },
          { label: t.common.details, render: (s) => <Button component={Link} href={`/subscriptions/${s.id}`} size="xs" variant="light">{t.subs.details}</Button> },
        ]} />
      )}
      {list.pager}
    </Stack>
  );
}
