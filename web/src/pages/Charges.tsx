import { useState } from 'react';
import { Button, Group, NativeSelect, Paper, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { Link } from 'wouter';
import { query, type ChargeListItem } from '../api';
import { Empty, Loading, PageHeader, StatusBadge, usePaged } from '../components';
import { ResponsiveTable } from '../table';
import { civilDay, money, when } from '../format';
import { useLang } from '../i18n';
import { useSession } from '../session';

const STATUSES = ['PENDING', 'PAID', 'EXPIRED', 'REFUNDED', 'DISPUTED'];

export function Charges() {
  const { t, lang } = useLang();
  const { can } = useSession();
  const [form, setForm] = useState({ status: '', id: '', email: '' });
  const [filters, setFilters] = useState(form);
  const list = usePaged<ChargeListItem>((c) => `/transparents/list${query({ ...filters, limit: 20 })}${c ? `${query(filters) ? '&' : '?'}${c}` : ''}`, [filters]);

  return (
    <Stack>
      <PageHeader title={t.charges.title}>
        {can('operate') ? <Button component={Link} href="/charges/new">{t.charges.new}</Button> : null}
      </PageHeader>
      <Paper withBorder p="md">
        <form onSubmit={(e) => { e.preventDefault(); setFilters({ ...form, id: form.id.trim(), email: form.email.trim() }); }}>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <NativeSelect label={t.charges.statusFilter} value={form.status} onChange={(e) => setForm({ ...form, status: e.currentTarget.value })}
              data={[{ value: '', label: t.common.all }, ...STATUSES.map((s) => ({ value: s, label: t.status[s] ?? s }))]} />
            <TextInput label={t.charges.idFilter} value={form.id} onChange={(e) => setForm({ ...form, id: e.currentTarget.value })} />
            <TextInput label={t.charges.emailFilter} type="email" value={form.email} onChange={(e) => setForm({ ...form, email: e.currentTarget.value })} />
          </SimpleGrid>
          <Group mt="sm">
            <Button type="submit" variant="light">{t.common.filter}</Button>
            <Button variant="subtle" onClick={() => { const empty = { status: '', id: '', email: '' }; setForm(empty); setFilters(empty); }}>{t.common.clear}</Button>
          </Group>
        </form>
      </Paper>
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <Empty /> : (
        <ResponsiveTable rows={list.items} rowKey={(c) => c.id} testId="charges-table" rowAttrs={(c) => ({ 'data-charge-id': c.id })} columns={[
          { label: t.common.amount, render: (c) => <Text fw={600}>{money(c.amount)}</Text> },
          { label: t.common.created, render: (c) => when(c.createdAt, lang) },
          { label: t.common.status, render: (c) => <StatusBadge status={c.status} /> },
          { label: t.charges.dueDate, render: (c) => civilDay(c.dueDate, lang) },
          { label: t.charges.customer, render: (c) => <Text size="sm" truncate maw={200}>{c.customer?.email ?? '—'}</Text> },
          { label: t.common.description, render: (c) => <Text size="sm" truncate maw={220}>{c.description ?? '—'}</Text> },
          { label: t.common.details, render: (c) => <Button component={Link} href={`/charges/${c.id}`} size="xs" variant="light">{t.charges.open}</Button> },
        ]} />
      )}
      {list.pager}
    </Stack>
  );
}
