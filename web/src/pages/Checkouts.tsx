import { useState } from 'react';
import { Anchor, Button, Group, NativeSelect, Paper, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { Link } from 'wouter';
import { query, type CheckoutListItem } from '../api';
import { Empty, Loading, PageHeader, StatusBadge, usePaged } from '../components';
import { ResponsiveTable } from '../table';
import { money, when } from '../format';
import { useLang } from '../i18n';

const STATUSES = ['PENDING', 'PAID', 'EXPIRED', 'REFUNDED', 'DISPUTED'];

/** The customer as a line: name and e-mail, or a dash. */
export const customerLine = (c: CheckoutListItem['customer']) => (c ? [c.name, c.email].filter(Boolean).join(' · ') : '—');

/** Checkouts as a list (this page, and a payment link's own checkouts). */
export function CheckoutTable({ rows }: { rows: CheckoutListItem[] }) {
  const { t, lang } = useLang();
  return (
    <ResponsiveTable rows={rows} rowKey={(k) => k.id} testId="checkouts-table" rowAttrs={(k) => ({ 'data-checkout-id': k.id })} columns={[
      { label: t.common.amount, render: (k) => <Text fw={600}>{money(k.amount)}</Text> },
      { label: t.common.status, render: (k) => <StatusBadge status={k.status} /> },
      { label: t.checkouts.customer, render: (k) => <Text size="sm" truncate maw={240}>{customerLine(k.customer)}</Text> },
      { label: t.common.created, render: (k) => when(k.createdAt, lang) },
      { label: t.checkouts.payPage, render: (k) => <Anchor href={k.url} target="_blank" rel="noopener noreferrer" size="sm">{t.checkouts.openPayPage}</Anchor> },
      { label: t.common.details, render: (k) => <Button component={Link} href={`/checkouts/${k.id}`} size="xs" variant="light">{t.checkouts.details}</Button> },
    ]} />
  );
}

export function Checkouts() {
  const t = useLang().t;
  const [form, setForm] = useState({ status: '', paymentLinkId: '' });
  const [filters, setFilters] = useState(form);
  const list = usePaged<CheckoutListItem>((c) => `/checkouts${query({ ...filters, limit: 20 })}${c ? `${query(filters) ? '&' : '?'}${c}` : ''}`, [filters]);
  return (
    <Stack>
      <PageHeader title={t.checkouts.title} />
      <Text c="dimmed" size="sm">{t.checkouts.intro}</Text>
      <Paper withBorder p="md">
        <form onSubmit={(e) => { e.preventDefault(); setFilters({ ...form, paymentLinkId: form.paymentLinkId.trim() }); }}>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <NativeSelect label={t.checkouts.statusFilter} value={form.status} onChange={(e) => setForm({ ...form, status: e.currentTarget.value })}
              data={[{ value: '', label: t.common.all }, ...STATUSES.map((s) => ({ value: s, label: t.status[s] ?? s }))]} />
            <TextInput label={t.checkouts.linkFilter} placeholder="plk_…" value={form.paymentLinkId} onChange={(e) => setForm({ ...form, paymentLinkId: e.currentTarget.value })} />
          </SimpleGrid>
          <Group mt="sm">
            <Button type="submit" variant="light">{t.common.filter}</Button>
            <Button variant="subtle" onClick={() => { const empty = { status: '', paymentLinkId: '' }; setForm(empty); setFilters(empty); }}>{t.common.clear}</Button>
          </Group>
        </form>
      </Paper>
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <Empty /> : <CheckoutTable rows={list.items} />}
      {list.pager}
    </Stack>
  );
}
