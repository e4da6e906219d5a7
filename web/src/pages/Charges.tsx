import { useState } from 'react';
import { Button, Group, NativeSelect, Paper, Stack, Table, Text, TextInput, VisuallyHidden } from '@mantine/core';
import { Link } from 'wouter';
import { query, type Charge } from '../api';
import { Empty, Loading, PageHeader, StatusBadge, usePaged } from '../components';
import { money, when } from '../format';
import { useLang } from '../i18n';
import { useSession } from '../session';

const STATUSES = ['PENDING', 'PAID', 'EXPIRED', 'REFUNDED', 'DISPUTED'];

export function Charges() {
  const { t, lang } = useLang();
  const { can } = useSession();
  const [form, setForm] = useState({ status: '', id: '', email: '' });
  const [filters, setFilters] = useState(form);
  const list = usePaged<Charge>((c) => `/transparents/list${query({ ...filters, limit: 20 })}${c ? `${query(filters) ? '&' : '?'}${c}` : ''}`, [filters]);

  return (
    <Stack>
      <PageHeader title={t.charges.title}>
        {can('operate') ? <Button component={Link} href="/charges/new">{t.charges.new}</Button> : null}
      </PageHeader>
      <Paper withBorder p="md">
        <form onSubmit={(e) => { e.preventDefault(); setFilters({ ...form, id: form.id.trim(), email: form.email.trim() }); }}>
          <Group align="flex-end" wrap="wrap">
            <NativeSelect label={t.charges.statusFilter} value={form.status} onChange={(e) => setForm({ ...form, status: e.currentTarget.value })}
              data={[{ value: '', label: t.common.all }, ...STATUSES.map((s) => ({ value: s, label: t.status[s] ?? s }))]} />
            <TextInput label={t.charges.idFilter} value={form.id} onChange={(e) => setForm({ ...form, id: e.currentTarget.value })} />
            <TextInput label={t.charges.emailFilter} type="email" value={form.email} onChange={(e) => setForm({ ...form, email: e.currentTarget.value })} />
            <Button type="submit" variant="light">{t.common.filter}</Button>
            <Button variant="subtle" onClick={() => { const empty = { status: '', id: '', email: '' }; setForm(empty); setFilters(empty); }}>{t.common.clear}</Button>
          </Group>
        </form>
      </Paper>
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <Empty /> : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover verticalSpacing="sm" data-testid="charges-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t.common.created}</Table.Th>
                <Table.Th>{t.common.amount}</Table.Th>
                <Table.Th>{t.common.status}</Table.Th>
                <Table.Th>{t.charges.customer}</Table.Th>
                <Table.Th>{t.common.description}</Table.Th>
                <Table.Th><VisuallyHidden>{t.common.details}</VisuallyHidden></Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.items.map((c) => (
                <Table.Tr key={c.id} data-charge-id={c.id}>
                  <Table.Td>{when(c.createdAt, lang)}</Table.Td>
                  <Table.Td fw={600}>{money(c.amount)}</Table.Td>
                  <Table.Td><StatusBadge status={c.status} /></Table.Td>
                  <Table.Td><Text size="sm" truncate maw={200}>{c.customer?.email ?? '—'}</Text></Table.Td>
                  <Table.Td><Text size="sm" truncate maw={220}>{c.description ?? '—'}</Text></Table.Td>
                  <Table.Td><Button component={Link} href={`/charges/${c.id}`} size="xs" variant="light">{t.charges.open}</Button></Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {list.pager}
    </Stack>
  );
}
