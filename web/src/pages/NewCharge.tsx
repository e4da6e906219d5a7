import { useState } from 'react';
import { Button, Paper, Stack, TextInput } from '@mantine/core';
import { useLocation } from 'wouter';
import { api, ApiError, type Charge } from '../api';
import { ErrorAlert, PageHeader, useSubmit } from '../components';
import { parseReais } from '../format';
import { useT } from '../i18n';

const FIELDS = ['amount', 'description', 'customerId', 'expiresIn'];

export function NewCharge() {
  const t = useT();
  const [, navigate] = useLocation();
  const [f, setF] = useState({ amount: '', description: '', customerId: '', expiresIn: '' });
  const s = useSubmit();
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const created = await s.run(async () => {
      const amount = parseReais(f.amount);
      if (amount === null) throw new ApiError(400, 'VALIDATION_ERROR', t.newCharge.invalidAmount);
      const minutes = f.expiresIn.trim() ? Number(f.expiresIn) : null;
      if (minutes !== null && !Number.isInteger(minutes)) throw new ApiError(400, 'VALIDATION_ERROR', 'expiresIn: must be a whole number of minutes');
      return api.post<Charge>('/transparents/create', {
        method: 'PIX', amount,
        ...(f.description.trim() ? { description: f.description.trim() } : {}),
        ...(f.customerId.trim() ? { customerId: f.customerId.trim() } : {}),
        ...(minutes !== null ? { expiresIn: minutes * 60 } : {}),
      });
    });
    if (created) navigate(`/charges/${created.id}`);
  };
  return (
    <Stack maw={520}>
      <PageHeader title={t.newCharge.title} />
      <Paper withBorder p="md">
        <form onSubmit={submit} noValidate>
          <Stack>
            <TextInput label={t.newCharge.amount} description={t.newCharge.amountHint} inputMode="decimal" required placeholder="10,50"
              value={f.amount} onChange={(e) => setF({ ...f, amount: e.currentTarget.value })} error={s.fieldError('amount')} />
            <TextInput label={t.newCharge.description} maxLength={140} value={f.description}
              onChange={(e) => setF({ ...f, description: e.currentTarget.value })} error={s.fieldError('description')} />
            <TextInput label={t.newCharge.customerId} placeholder="cust_…" value={f.customerId}
              onChange={(e) => setF({ ...f, customerId: e.currentTarget.value })} error={s.fieldError('customerId')} />
            <TextInput label={t.newCharge.expiresIn} inputMode="numeric" value={f.expiresIn}
              onChange={(e) => setF({ ...f, expiresIn: e.currentTarget.value })} error={s.fieldError('expiresIn')} />
            <ErrorAlert message={s.otherError(FIELDS)} />
            <Button type="submit" loading={s.busy}>{t.newCharge.submit}</Button>
          </Stack>
        </form>
      </Paper>
    </Stack>
  );
}
