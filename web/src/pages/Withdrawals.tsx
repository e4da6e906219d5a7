import { useState } from 'react';
import { Alert, Button, Group, Modal, NativeSelect, Paper, Stack, Table, Text, TextInput } from '@mantine/core';
import { api, ApiError, query, type Contract, type Store, type Withdrawal, type WithdrawalQuote } from '../api';
import { Empty, ErrorAlert, Loading, PageHeader, StatusBadge, useLoad, usePaged, useSubmit } from '../components';
import { ResponsiveTable } from '../table';
import { money, parseReais, when } from '../format';
import { useLang } from '../i18n';
import { useSession } from '../session';

const KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'TELEFONE', 'CHAVE_ALEATORIA'];
const KEY_LABELS: Record<string, string> = { CPF: 'CPF', CNPJ: 'CNPJ', EMAIL: 'E-mail', TELEFONE: 'Telefone', CHAVE_ALEATORIA: 'Chave aleatória' };
const FIELDS = ['amount', 'pixKey', 'pixKeyType', 'description', 'taxId'];
const EMPTY = { amount: '', pixKey: '', pixKeyType: 'CPF', description: '', taxId: '' };


function RequestWithdrawal({ onDone }: { onDone: () => void }) {
  const { t } = useLang();
  const [open, setOpen] = useState(false);
  const [f, setF] = useState(EMPTY);
  const [review, setReview] = useState<WithdrawalQuote | null>(null);
  const s = useSubmit();

  const toReview = async (e: React.FormEvent) => {
    e.preventDefault();
    await s.run(async () => {
      const amount = parseReais(f.amount);
      if (amount === null) throw new ApiError(400, 'VALIDATION_ERROR', 'amount: informe um valor como 100,00');
      if (!f.pixKey.trim()) throw new ApiError(400, 'VALIDATION_ERROR', 'pixKey: required');
      // The server's quote: the fee is computed in one place (src/withdrawals/withdrawal.rules.ts).
      setReview(await api.get<WithdrawalQuote>(`/withdrawals/quote${query({ amount })}`));
    });
  };
  const confirm = async () => {
    if (!review) return;
    const done = await s.run(() => api.post<Withdrawal>('/withdrawals', {
      amount: review.amount, pixKey: f.pixKey.trim(), pixKeyType: f.pixKeyType,
      ...(f.description.trim() ? { description: f.description.trim() } : {}),
      ...(f.taxId.trim() ? { taxId: f.taxId.trim() } : {}),
    }));
    setReview(null);
    if (done) {
      setF(EMPTY);
      setOpen(false);
      onDone();
    }
  };
  const total = review ? review.total : 0;
  return (
    <>
      <Button onClick={() => setOpen(true)}>{t.withdrawals.new}</Button>
      <Modal opened={open} onClose={() => { setOpen(false); setReview(null); }} title={review ? t.withdrawals.confirmTitle : t.withdrawals.new} centered>
        {review ? (
          <Stack data-testid="withdrawal-review">
            <Table variant="vertical" withRowBorders={false}>
              <Table.Tbody>
                <Table.Tr><Table.Th>{t.withdrawals.receive}</Table.Th><Table.Td>{money(review.amount)}</Table.Td></Table.Tr>
                <Table.Tr><Table.Th>{t.withdrawals.fee}</Table.Th><Table.Td data-testid="withdrawal-fee">{money(review.fee)}</Table.Td></Table.Tr>
                <Table.Tr><Table.Th>{t.withdrawals.total}</Table.Th><Table.Td fw={700}>{money(total)}</Table.Td></Table.Tr>
                <Table.Tr><Table.Th>{t.withdrawals.after}</Table.Th><Table.Td fw={700} data-testid="withdrawal-after">{money(review.available - total)}</Table.Td></Table.Tr>
                <Table.Tr><Table.Th>{t.withdrawals.pixKey}</Table.Th><Table.Td style={{ wordBreak: 'break-all' }}>{KEY_LABELS[f.pixKeyType]}: {f.pixKey}</Table.Td></Table.Tr>
              </Table.Tbody>
            </Table>
            <Text size="xs" c="dimmed">{t.withdrawals.feeContract}</Text>
            {review.available - total < 0 ? <Alert color="red">{t.withdrawals.insufficient}</Alert> : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setReview(null)}>{t.common.back}</Button>
              <Button loading={s.busy} onClick={confirm}>{t.withdrawals.submit}</Button>
            </Group>
          </Stack>
        ) : (
          <form onSubmit={toReview} noValidate>
            <Stack>
              <TextInput label={t.withdrawals.amount} inputMode="decimal" required placeholder="100,00" value={f.amount}
                onChange={(e) => setF({ ...f, amount: e.currentTarget.value })} error={s.fieldError('amount')} />
              <NativeSelect label={t.withdrawals.pixKeyType} value={f.pixKeyType} onChange={(e) => setF({ ...f, pixKeyType: e.currentTarget.value })}
                data={KEY_TYPES.map((k) => ({ value: k, label: KEY_LABELS[k]! }))} error={s.fieldError('pixKeyType')} />
              <TextInput label={t.withdrawals.pixKey} required value={f.pixKey} onChange={(e) => setF({ ...f, pixKey: e.currentTarget.value })} error={s.fieldError('pixKey')} />
              <TextInput label={t.withdrawals.taxId} value={f.taxId} onChange={(e) => setF({ ...f, taxId: e.currentTarget.value })} error={s.fieldError('taxId')} />
              <TextInput label={t.withdrawals.description} value={f.description} onChange={(e) => setF({ ...f, description: e.currentTarget.value })} error={s.fieldError('description')} />
              <ErrorAlert message={s.otherError(FIELDS)} />
              <Button type="submit" loading={s.busy}>{t.withdrawals.review}</Button>
            </Stack>
          </form>
        )}
      </Modal>
    </>
  );
}

export function Withdrawals() {
  const { t, lang } = useLang();
  const { can } = useSession();
  const [status, setStatus] = useState('');
  const list = usePaged<Withdrawal>((c) => `/withdrawals${query({ status, limit: 20 })}${c ? `${status ? '&' : '?'}${c}` : ''}`, [status]);
  const store = useLoad(() => api.get<Store>('/me/store'), [list.data]);
  const contract = useLoad(() => api.get<Contract>('/me/contract'), []);
  return (
    <Stack>
      <PageHeader title={t.withdrawals.title}>{can('money') ? <RequestWithdrawal onDone={list.reload} /> : null}</PageHeader>
      <Paper withBorder p="md">
        <Group justify="space-between" align="flex-end">
          <NativeSelect label={t.common.status} value={status} onChange={(e) => setStatus(e.currentTarget.value)}
            data={[{ value: '', label: t.common.all }, ...['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'].map((s) => ({ value: s, label: t.status[s] ?? s }))]} />
          <Group gap="lg">
            <Text size="sm" data-testid="withdrawal-contract-fee">{t.withdrawals.fee}: <b>{contract.data ? money(contract.data.withdrawalFeeFixed) : '—'}</b></Text>
            <Text size="sm">{t.overview.available}: <b>{money(store.data?.balance.available)}</b></Text>
          </Group>
        </Group>
      </Paper>
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <Empty /> : (
        <ResponsiveTable rows={list.items} rowKey={(w) => w.id} testId="withdrawals-table" columns={[
          { label: t.common.amount, render: (w) => <Text fw={600}>{money(w.amount)}</Text> },
          { label: t.common.created, render: (w) => when(w.createdAt, lang) },
          { label: t.withdrawals.fee, render: (w) => money(w.fee) },
          { label: t.common.status, render: (w) => <StatusBadge status={w.status} /> },
          { label: t.withdrawals.completedAt, render: (w) => when(w.completedAt, lang) },
          { label: t.common.description, render: (w) => (w.failedReason ? `${t.withdrawals.failedReason}: ${w.failedReason}` : (w.description ?? '—')) },
        ]} />
      )}
      {list.pager}
    </Stack>
  );
}
