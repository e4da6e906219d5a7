import { useState } from 'react';
import { Button, Divider, Group, Modal, NativeSelect, Paper, Radio, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useLocation } from 'wouter';
import { FREQUENCIES, MIN_START_DAYS, RETRY_POLICIES, earliestStartDate, type Frequency, type RetryPolicy } from '../../../src/subscriptions/cycle.rules';
import { api, ApiError, type Subscription, type SubscriptionCreate } from '../api';
import { ErrorAlert, Facts, PageHeader, useSubmit } from '../components';
import { asDay, CycleDates, spToday } from '../cycles';
import { CustomerPicker } from '../customer-picker';
import { civilDay, money, parseReais } from '../format';
import { useLang, type Dict } from '../i18n';

type Kind = 'fixed' | 'variable';
type Journey = SubscriptionCreate['journey'];
const JOURNEYS: Journey[] = ['QR', 'QR_WITH_PAYMENT', 'PUSH'];
interface Form {
  customerId: string; kind: Kind; amount: string; minAmount: string; frequency: Frequency; startDate: string; endDate: string;
  contract: string; description: string; retryPolicy: RetryPolicy; journey: Journey;
  firstPayment: string; ispb: string; branch: string; account: string; requestHours: string;
}
const EMPTY: Form = {
  customerId: '', kind: 'fixed', amount: '', minAmount: '', frequency: 'MONTHLY', startDate: '', endDate: '', contract: '', description: '',
  retryPolicy: 'NONE', journey: 'QR', firstPayment: '', ispb: '', branch: '', account: '', requestHours: '',
};
/** Every field the form shows an error beside; anything else goes above the button. */
const FIELDS = ['customerId', 'amount', 'minAmount', 'frequency', 'startDate', 'endDate', 'contract', 'description', 'retryPolicy', 'journey', 'firstPayment', 'payerAccount', 'requestExpiresIn'];
const HOUR = 3600;
/** The body field a form field fills, where their names differ. */
const API_FIELD: Partial<Record<keyof Form, string>> = { ispb: 'payerAccount', branch: 'payerAccount', account: 'payerAccount', requestHours: 'requestExpiresIn' };

/** The form as the body of POST /subscriptions; a value that does not read is an error named after its field. */
function toBody(f: Form, t: Dict): SubscriptionCreate {
  const fail = (field: string, reason: string): never => { throw new ApiError(400, 'VALIDATION_ERROR', `${field}: ${reason}`); };
  const reais = (text: string, field: string) => parseReais(text) ?? fail(field, t.subs.invalidAmount);
  const body: SubscriptionCreate = {
    customerId: f.customerId, frequency: f.frequency, startDate: f.startDate, contract: f.contract.trim(), journey: f.journey, retryPolicy: f.retryPolicy,
  };
  if (f.kind === 'fixed') body.amount = reais(f.amount, 'amount');
  else body.minAmount = reais(f.minAmount, 'minAmount');
  if (f.endDate) body.endDate = f.endDate;
  if (f.description.trim()) body.description = f.description.trim();
  if (f.journey === 'QR_WITH_PAYMENT') body.firstPayment = { amount: reais(f.firstPayment, 'firstPayment.amount') };
  if (f.journey === 'PUSH') {
    body.payerAccount = { ispb: f.ispb.trim(), branch: f.branch.trim(), account: f.account.trim() };
    if (f.requestHours.trim()) {
      const hours = /^\d+$/.test(f.requestHours.trim()) ? Number(f.requestHours.trim()) : fail('requestExpiresIn', t.subs.wholeHours);
      body.requestExpiresIn = hours * HOUR;
    }
  }
  return body;
}

/** The subscription as the merchant is about to create it, with its first due dates, before anything is sent. */
function Review({ f, body, customers, onConfirm, onClose, busy }: {
  f: Form; body: SubscriptionCreate; customers: string; onConfirm(): void; onClose(): void; busy: boolean;
}) {
  const { t, lang } = useLang();
  return (
    <Modal opened onClose={onClose} title={t.subs.confirmTitle} centered size="lg">
      <Stack>
        <Facts testId="subscription-review" rows={[
          [t.subs.customer, customers],
          [t.subs.amount, body.amount !== undefined ? money(body.amount) : t.subs.variable(money(body.minAmount))],
          [t.subs.frequency, t.subs.frequencies[f.frequency] ?? f.frequency],
          [t.subs.end, body.endDate ? civilDay(body.endDate, lang) : t.subs.openEnded],
          [t.subs.journey, t.subs.journeys[f.journey] ?? f.journey],
          ...(body.firstPayment ? [[t.subs.firstPayment, money(body.firstPayment.amount)] as [string, string]] : []),
          [t.subs.retryPolicy, t.subs.retryPolicies[f.retryPolicy] ?? f.retryPolicy],
          [t.subs.contract, body.contract],
        ]} />
        <Title order={3} size="h5">{t.subs.upcoming}</Title>
        {asDay(body.startDate) ? <CycleDates startDate={body.startDate} frequency={f.frequency} endDate={asDay(body.endDate)} testId="review-dates" /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>{t.common.back}</Button>
          <Button loading={busy} onClick={onConfirm}>{t.subs.submit}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export function NewSubscription() {
  const { t, lang } = useLang();
  const [, navigate] = useLocation();
  const [f, setF] = useState<Form>(EMPTY);
  const [review, setReview] = useState<SubscriptionCreate | null>(null);
  const [customerLabel, setCustomerLabel] = useState('');
  const s = useSubmit();
  // An error stays beside its field until that field is edited: a corrected date no longer says it is wrong.
  const set = (patch: Partial<Form>) => {
    setF({ ...f, ...patch });
    const named = s.error?.field?.split('.')[0];
    if (named && (Object.keys(patch) as Array<keyof Form>).some((k) => (API_FIELD[k] ?? k) === named)) s.setError(null);
  };
  const earliest = earliestStartDate(spToday());
  const start = asDay(f.startDate);
  const end = asDay(f.endDate);

  const toReview = (e: React.FormEvent) => {
    e.preventDefault();
    s.setError(null);
    try {
      setReview(toBody(f, t));
    } catch (err) {
      if (err instanceof ApiError) s.setError(err);
      else throw err;
    }
  };
  const create = async () => {
    const body = review!;
    const created = await s.run(() => api.post<Subscription>('/subscriptions', body));
    setReview(null);
    if (created) navigate(`/subscriptions/${created.id}`);
  };

  return (
    <Stack maw={720}>
      <PageHeader title={t.subs.newTitle} />
      <Paper withBorder p="md">
        <form onSubmit={toReview} noValidate>
          <Stack>
            <CustomerPicker label={t.subs.customerPick} description={t.subs.customerHint} payer value={f.customerId} onChange={(customerId, label) => { set({ customerId }); setCustomerLabel(label); }} error={s.fieldError('customerId')} />
            <Divider />
            <Radio.Group label={t.subs.amountKind} value={f.kind} onChange={(v) => set({ kind: v as Kind })}>
              <Group mt={6}>
                {(['fixed', 'variable'] as const).map((k) => <Radio key={k} value={k} label={t.subs.kinds[k]} />)}
              </Group>
            </Radio.Group>
            {f.kind === 'fixed' ? (
              <TextInput label={t.subs.fixedAmount} inputMode="decimal" placeholder="29,90" required value={f.amount}
                onChange={(e) => set({ amount: e.currentTarget.value })} error={s.fieldError('amount')} />
            ) : (
              <TextInput label={t.subs.minAmount} description={t.subs.minAmountHint} inputMode="decimal" placeholder="10,00" required value={f.minAmount}
                onChange={(e) => set({ minAmount: e.currentTarget.value })} error={s.fieldError('minAmount')} />
            )}
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <NativeSelect label={t.subs.frequency} value={f.frequency} onChange={(e) => set({ frequency: e.currentTarget.value as Frequency })}
                data={FREQUENCIES.map((v) => ({ value: v, label: t.subs.frequencies[v] ?? v }))} error={s.fieldError('frequency')} />
              <TextInput type="date" label={t.subs.startDate} required min={earliest} value={f.startDate}
                onChange={(e) => set({ startDate: e.currentTarget.value })} error={s.fieldError('startDate')} />
              <TextInput type="date" label={t.subs.endDate} min={f.startDate || earliest} value={f.endDate}
                onChange={(e) => set({ endDate: e.currentTarget.value })} error={s.fieldError('endDate')} />
            </SimpleGrid>
            <Text size="xs" c="dimmed" mt={-8}>{t.subs.startHint(civilDay(earliest, lang), MIN_START_DAYS)} {t.subs.endHint}</Text>
            <Paper bg="gray.0" p="sm" radius="sm">
              <Text size="sm" fw={600} mb={4}>{t.subs.upcoming}</Text>
              {start ? <CycleDates startDate={start} frequency={f.frequency} endDate={end} testId="cycle-preview" />
                : <Text size="sm" c="dimmed">{t.subs.previewEmpty}</Text>}
            </Paper>
            <Divider />
            <TextInput label={t.subs.contractField} required maxLength={35} placeholder="Plano mensal 123" value={f.contract}
              onChange={(e) => set({ contract: e.currentTarget.value })} error={s.fieldError('contract')} />
            <TextInput label={t.subs.description} maxLength={35} value={f.description}
              onChange={(e) => set({ description: e.currentTarget.value })} error={s.fieldError('description')} />
            <NativeSelect label={t.subs.retryPolicy} value={f.retryPolicy} onChange={(e) => set({ retryPolicy: e.currentTarget.value as RetryPolicy })}
              data={RETRY_POLICIES.map((v) => ({ value: v, label: t.subs.retryPolicies[v] ?? v }))} error={s.fieldError('retryPolicy')} />
            <Divider />
            <Radio.Group label={t.subs.journey} value={f.journey} onChange={(v) => set({ journey: v as Journey })} error={s.fieldError('journey')}>
              <Stack mt={6} gap="xs">
                {JOURNEYS.map((j) => <Radio key={j} value={j} label={t.subs.journeys[j]} description={t.subs.journeyHints[j]} />)}
              </Stack>
            </Radio.Group>
            {f.journey === 'QR_WITH_PAYMENT' ? (
              <TextInput label={t.subs.firstPayment} description={t.subs.firstPaymentHint} inputMode="decimal" placeholder="29,90" required
                value={f.firstPayment} onChange={(e) => set({ firstPayment: e.currentTarget.value })} error={s.fieldError('firstPayment')} />
            ) : null}
            {f.journey === 'PUSH' ? (
              <Stack gap="xs">
                <Title order={3} size="h6">{t.subs.payerAccount}</Title>
                <SimpleGrid cols={{ base: 1, sm: 3 }}>
                  <TextInput label={t.subs.ispb} inputMode="numeric" maxLength={8} required value={f.ispb}
                    onChange={(e) => set({ ispb: e.currentTarget.value })} error={s.fieldError('payerAccount.ispb')} />
                  <TextInput label={t.subs.branch} inputMode="numeric" maxLength={4} required value={f.branch}
                    onChange={(e) => set({ branch: e.currentTarget.value })} error={s.fieldError('payerAccount.branch')} />
                  <TextInput label={t.subs.account} inputMode="numeric" maxLength={20} required value={f.account}
                    onChange={(e) => set({ account: e.currentTarget.value })} error={s.fieldError('payerAccount.account')} />
                </SimpleGrid>
                {/* `payerAccount: required for journey PUSH` names no part of it */}
                <ErrorAlert message={s.error?.field === 'payerAccount' ? s.message : null} />
                <TextInput label={t.subs.requestHours} inputMode="numeric" value={f.requestHours}
                  onChange={(e) => set({ requestHours: e.currentTarget.value })} error={s.fieldError('requestExpiresIn')} />
              </Stack>
            ) : null}
            <ErrorAlert message={s.otherError(FIELDS)} />
            <Button type="submit">{t.subs.review}</Button>
          </Stack>
        </form>
      </Paper>
      {review ? <Review f={f} body={review} customers={customerLabel} busy={s.busy} onConfirm={create} onClose={() => setReview(null)} /> : null}
    </Stack>
  );
}
