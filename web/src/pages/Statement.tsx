import { useState } from 'react';
import { Button, Group, NativeSelect, Paper, Stack, Text, TextInput } from '@mantine/core';
import { query, type StatementLine } from '../api';
import { Empty, Loading, PageHeader, usePaged } from '../components';
import { ResponsiveTable } from '../table';
import { money, when } from '../format';
import { useLang } from '../i18n';

/** A São Paulo calendar day as the ISO instant of its midnight (UTC−3; Brazil has no daylight time since 2019). */
const spMidnight = (date: string, plusDays = 0) => {
  if (!date) return '';
  const d = new Date(`${date}T00:00:00.000-03:00`);
  d.setUTCDate(d.getUTCDate() + plusDays);
  return d.toISOString();
};

export function Statement() {
  const { t, lang } = useLang();
  const [form, setForm] = useState({ account: 'available', from: '', to: '' });
  const [filters, setFilters] = useState(form);
  // `to` is exclusive in the API (docs/contract/statement.md#statement): the chosen last day is included.
  const params = { account: filters.account, from: spMidnight(filters.from), to: spMidnight(filters.to, 1) };
  const list = usePaged<StatementLine>((c) => `/me/statement${query({ ...params, limit: 50 })}${c ? `&${c}` : ''}`, [filters]);
  const exportQuery = query(params);
  return (
    <Stack>
      <PageHeader title={t.statement.title}>
        <Button component="a" variant="default" href={`/me/statement.csv${exportQuery}`} download>{t.statement.csv}</Button>
        <Button component="a" variant="default" href={`/me/statement.ofx${query({ from: params.from, to: params.to })}`} download>{t.statement.ofx}</Button>
      </PageHeader>
      <Paper withBorder p="md">
        <form onSubmit={(e) => { e.preventDefault(); setFilters(form); }}>
          <Group align="flex-end">
            <NativeSelect label={t.statement.account} value={form.account} onChange={(e) => setForm({ ...form, account: e.currentTarget.value })}
              data={['available', 'pending', 'blocked'].map((a) => ({ value: a, label: t.statement.accounts[a] ?? a }))} />
            <TextInput type="date" label={t.statement.from} value={form.from} onChange={(e) => setForm({ ...form, from: e.currentTarget.value })} />
            <TextInput type="date" label={t.statement.to} value={form.to} onChange={(e) => setForm({ ...form, to: e.currentTarget.value })} />
            <Button type="submit" variant="light">{t.common.filter}</Button>
          </Group>
        </form>
      </Paper>
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <Empty /> : (
        <ResponsiveTable rows={list.items} rowKey={(l) => l.id} testId="statement-table" columns={[
          { label: t.statement.type, render: (l) => <><Text size="sm" fw={500}>{t.statement.types[l.type] ?? l.type}</Text><Text size="xs" c="dimmed">{l.description}</Text></> },
          { label: t.common.created, render: (l) => when(l.createdAt, lang) },
          { label: t.common.amount, align: 'right', render: (l) => <Text c={l.amount < 0 ? 'red.7' : 'teal.8'} fw={600} size="sm">{money(l.amount)}</Text> },
          { label: t.statement.balanceAfter, align: 'right', render: (l) => money(l.balanceAfter) },
        ]} />
      )}
      {list.pager}
    </Stack>
  );
}
