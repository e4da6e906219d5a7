import { useState } from 'react';
import { Button, Group, Modal, Paper, Stack, Text, TextInput } from '@mantine/core';
import { api, query, type Customer } from '../api';
import { ConfirmButton, Empty, ErrorAlert, Loading, PageHeader, usePaged, useSubmit } from '../components';
import { ResponsiveTable } from '../table';
import { when } from '../format';
import { useLang } from '../i18n';
import { useSession } from '../session';

const FIELDS = ['email', 'name', 'taxId', 'phone'];
const EMPTY = { email: '', name: '', taxId: '', phone: '' };

function NewCustomer({ onCreated }: { onCreated: () => void }) {
  const { t } = useLang();
  const [open, setOpen] = useState(false);
  const [f, setF] = useState(EMPTY);
  const s = useSubmit();
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const body = Object.fromEntries(Object.entries(f).map(([k, v]) => [k, v.trim()]).filter(([, v]) => v));
    if (await s.run(() => api.post<Customer>('/customers', body))) {
      setF(EMPTY);
      setOpen(false);
      onCreated();
    }
  };
  return (
    <>
      <Button onClick={() => setOpen(true)}>{t.customers.new}</Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={t.customers.new} centered>
        <form onSubmit={submit} noValidate>
          <Stack>
            <TextInput label={t.customers.email} type="email" required value={f.email} onChange={(e) => setF({ ...f, email: e.currentTarget.value })} error={s.fieldError('email')} />
            <TextInput label={t.customers.name} value={f.name} onChange={(e) => setF({ ...f, name: e.currentTarget.value })} error={s.fieldError('name')} />
            <TextInput label={t.customers.taxId} inputMode="numeric" value={f.taxId} onChange={(e) => setF({ ...f, taxId: e.currentTarget.value })} error={s.fieldError('taxId')} />
            <TextInput label={t.customers.phone} type="tel" value={f.phone} onChange={(e) => setF({ ...f, phone: e.currentTarget.value })} error={s.fieldError('phone')} />
            <ErrorAlert message={s.otherError(FIELDS)} />
            <Button type="submit" loading={s.busy}>{t.customers.submit}</Button>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

export function Customers() {
  const { t, lang } = useLang();
  const { can } = useSession();
  const [email, setEmail] = useState('');
  const [filter, setFilter] = useState('');
  const list = usePaged<Customer>((c) => `/customers${query({ email: filter, limit: 20 })}${c ? `${filter ? '&' : '?'}${c}` : ''}`, [filter]);
  return (
    <Stack>
      <PageHeader title={t.customers.title}>{can('operate') ? <NewCustomer onCreated={list.reload} /> : null}</PageHeader>
      <Paper withBorder p="md">
        <form onSubmit={(e) => { e.preventDefault(); setFilter(email.trim()); }}>
          <Group align="flex-end">
            <TextInput label={t.customers.search} type="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
            <Button type="submit" variant="light">{t.common.filter}</Button>
          </Group>
        </form>
      </Paper>
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <Empty /> : (
        <ResponsiveTable rows={list.items} rowKey={(c) => c.id} testId="customers-table" columns={[
          { label: t.common.name, render: (c) => c.name ?? c.email },
          { label: t.common.email, render: (c) => c.email },
          { label: 'CPF/CNPJ', render: (c) => c.taxId ?? '—' },
          { label: t.common.created, render: (c) => when(c.createdAt, lang) },
          { label: t.common.id, render: (c) => <Text ff="monospace" fz="xs">{c.id}</Text> },
          ...(can('operate') ? [{ label: t.common.actions, render: (c: Customer) => <ConfirmButton size="xs" label={t.customers.remove} question={t.customers.removeConfirm}
            onConfirm={async () => { await api.del(`/customers/${encodeURIComponent(c.id)}`); list.reload(); }} /> }] : []),
        ]} />
      )}
      {list.pager}
    </Stack>
  );
}
