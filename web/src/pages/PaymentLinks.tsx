import { useState } from 'react';
import { Button, NativeSelect, Paper, Stack, Text } from '@mantine/core';
import { Link } from 'wouter';
import { query, type PaymentLink } from '../api';
import { Empty, Loading, PageHeader, StatusBadge, usePaged } from '../components';
import { ResponsiveTable } from '../table';
import { money, when } from '../format';
import { useLang, type Dict } from '../i18n';
import { useSession } from '../session';

/** `R$ 10,00`, `de R$ 5,00 a R$ 500,00`: what a payer pays through the link. */
export const linkPrice = (l: PaymentLink, t: Dict) => (l.amountRange ? t.links.range(money(l.amountRange.min), money(l.amountRange.max)) : money(l.amount));

/** `3` or `3 / 10`: payments so far, and the limit when there is one. */
export const linkPayments = (l: PaymentLink) => (l.maxPayments === null ? String(l.payments) : `${l.payments} / ${l.maxPayments}`);

export function PaymentLinks() {
  const { t, lang } = useLang();
  const { can } = useSession();
  const [status, setStatus] = useState('');
  const list = usePaged<PaymentLink>((c) => `/payment-links${query({ status, limit: 20 })}${c ? `${status ? '&' : '?'}${c}` : ''}`, [status]);
  return (
    <Stack>
      <PageHeader title={t.links.title}>
        {can('operate') ? <Button component={Link} href="/payment-links/new">{t.links.new}</Button> : null}
      </PageHeader>
      <Text c="dimmed" size="sm">{t.links.intro}</Text>
      <Paper withBorder p="md" maw={320}>
        <NativeSelect label={t.common.status} value={status} onChange={(e) => setStatus(e.currentTarget.value)}
          data={[{ value: '', label: t.common.all }, ...['ACTIVE', 'INACTIVE'].map((s) => ({ value: s, label: t.status[s] ?? s }))]} />
      </Paper>
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <Empty /> : (
        <ResponsiveTable rows={list.items} rowKey={(l) => l.id} testId="links-table" rowAttrs={(l) => ({ 'data-link-id': l.id })} columns={[
          { label: t.common.name, render: (l) => <Text fw={600} truncate maw={260}>{l.name}</Text> },
          { label: t.common.status, render: (l) => <StatusBadge status={l.status} /> },
          { label: t.links.price, render: (l) => linkPrice(l, t) },
          { label: t.links.payments, align: 'right', render: (l) => <span data-testid="link-row-payments">{linkPayments(l)}</span> },
          { label: t.links.received, align: 'right', render: (l) => <Text fw={600} span data-testid="link-row-received">{money(l.amountReceived)}</Text> },
          { label: t.links.created, render: (l) => when(l.createdAt, lang) },
          { label: t.common.details, render: (l) => <Button component={Link} href={`/payment-links/${l.id}`} size="xs" variant="light">{t.checkouts.open}</Button> },
        ]} />
      )}
      {list.pager}
    </Stack>
  );
}
