import { useState } from 'react';
import { ActionIcon, Button, Checkbox, Group, Paper, Radio, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useLocation } from 'wouter';
import { saoPauloDayEnd } from '../../../src/calendar/sao-paulo.rules';
import { api, ApiError, type PaymentLink, type PaymentLinkCreate } from '../api';
import { ErrorAlert, PageHeader, useSubmit } from '../components';
import { parseReais } from '../format';
import { useT, type Dict } from '../i18n';
import { PagePreview } from '../preview';

type Kind = 'amount' | 'range' | 'items';
type Field = 'name' | 'email' | 'taxId' | 'phone';
interface Line { name: string; quantity: string; price: string }
interface Form {
  name: string; description: string; kind: Kind; amount: string; min: string; max: string; items: Line[];
  customerFields: Field[]; maxPayments: string; activeUntil: string; completionUrl: string; checkoutMinutes: string;
}

const FIELDS = ['name', 'description', 'customerFields', 'maxPayments', 'activeUntil', 'completionUrl', 'checkoutExpiresIn'];
const EMPTY: Form = {
  name: '', description: '', kind: 'amount', amount: '', min: '', max: '', items: [{ name: '', quantity: '1', price: '' }],
  customerFields: [], maxPayments: '', activeUntil: '', completionUrl: '', checkoutMinutes: '',
};

/** The fields of the price inputs on screen, which show their own errors. */
const priceInputs = (f: Form): string[] => (f.kind === 'amount' ? ['amount'] : f.kind === 'range' ? ['amountRange.min', 'amountRange.max']
  : f.items.flatMap((_, i) => [`items[${i}].name`, `items[${i}].quantity`, `items[${i}].unitPrice`]));

const wholeNumber = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : null);

/**
 * The form as the body of POST /payment-links. `strict`: for the create, a value that does not read is an error
 * named after its field (shown beside it); otherwise (the preview of a draft being typed) it is left out.
 */
function toBody(f: Form, t: Dict, strict: boolean): PaymentLinkCreate {
  const fail = (field: string, reason: string): never => { throw new ApiError(400, 'VALIDATION_ERROR', `${field}: ${reason}`); };
  const reais = (text: string, field: string) => parseReais(text) ?? (strict ? fail(field, t.links.invalidAmount) : undefined);
  const count = (text: string, field: string) => (text.trim() === '' ? undefined : wholeNumber(text) ?? (strict ? fail(field, t.links.wholeNumber) : undefined));
  const body: PaymentLinkCreate = { name: f.name.trim() || (strict ? '' : t.links.namePlaceholder) };
  if (f.description.trim()) body.description = f.description.trim();
  if (f.kind === 'amount') body.amount = reais(f.amount, 'amount');
  if (f.kind === 'range') {
    const [min, max] = [reais(f.min, 'amountRange.min'), reais(f.max, 'amountRange.max')];
    if (min !== undefined && max !== undefined) body.amountRange = { min, max };
  }
  if (f.kind === 'items') {
    const lines = f.items.map((l, i) => ({
      name: l.name.trim(), quantity: wholeNumber(l.quantity) ?? (strict ? fail(`items[${i}].quantity`, t.links.wholeNumber) : 0),
      unitPrice: reais(l.price, `items[${i}].unitPrice`) ?? 0,
    }));
    const complete = strict ? lines : lines.filter((l) => l.name && l.quantity > 0 && l.unitPrice > 0);
    if (complete.length) body.items = complete;
  }
  if (f.customerFields.length) body.customerFields = f.customerFields;
  const maxPayments = count(f.maxPayments, 'maxPayments');
  if (maxPayments !== undefined) body.maxPayments = maxPayments;
  if (f.activeUntil) body.activeUntil = saoPauloDayEnd(f.activeUntil as `${number}-${number}-${number}`).toISOString();
  if (f.completionUrl.trim()) body.completionUrl = f.completionUrl.trim();
  const minutes = count(f.checkoutMinutes, 'checkoutExpiresIn');
  if (minutes !== undefined) body.checkoutExpiresIn = minutes * 60;
  return body;
}

/** Every field of the preview's body that reads, so the preview follows the typing (the server checks the rest). */
function previewBody(f: Form, t: Dict): PaymentLinkCreate {
  try {
    return toBody(f, t, false);
  } catch {
    return { name: f.name.trim() || t.links.namePlaceholder };
  }
}

export function NewPaymentLink() {
  const t = useT();
  const [, navigate] = useLocation();
  const [f, setF] = useState<Form>(EMPTY);
  const s = useSubmit();
  const set = (patch: Partial<Form>) => setF({ ...f, ...patch });
  const setLine = (i: number, patch: Partial<Line>) => set({ items: f.items.map((l, j) => (j === i ? { ...l, ...patch } : l)) });
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const created = await s.run(() => api.post<PaymentLink>('/payment-links', toBody(f, t, true)));
    if (created) navigate(`/payment-links/${created.id}`);
  };
  return (
    <Stack>
      <PageHeader title={t.links.newTitle} />
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
        <Paper withBorder p="md">
          <form onSubmit={submit} noValidate>
            <Stack>
              <TextInput label={t.links.name} required maxLength={120} value={f.name} onChange={(e) => set({ name: e.currentTarget.value })} error={s.fieldError('name')} />
              <TextInput label={t.links.description} maxLength={140} value={f.description} onChange={(e) => set({ description: e.currentTarget.value })} error={s.fieldError('description')} />
              <Radio.Group label={t.links.priceKind} value={f.kind} onChange={(v) => set({ kind: v as Kind })}>
                <Group mt={6}>
                  {(['amount', 'range', 'items'] as const).map((k) => <Radio key={k} value={k} label={t.links.kinds[k]} />)}
                </Group>
              </Radio.Group>
              {f.kind === 'amount' ? (
                <TextInput label={t.links.amount} inputMode="decimal" placeholder="10,50" value={f.amount} onChange={(e) => set({ amount: e.currentTarget.value })} error={s.fieldError('amount')} />
              ) : null}
              {f.kind === 'range' ? (
                <Group grow align="flex-start">
                  <TextInput label={t.links.min} inputMode="decimal" placeholder="5,00" value={f.min} onChange={(e) => set({ min: e.currentTarget.value })} error={s.fieldError('amountRange.min')} />
                  <TextInput label={t.links.max} inputMode="decimal" placeholder="500,00" value={f.max} onChange={(e) => set({ max: e.currentTarget.value })} error={s.fieldError('amountRange.max')} />
                </Group>
              ) : null}
              {f.kind === 'items' ? (
                <Stack gap="xs">
                  {f.items.map((line, i) => (
                    <Group key={i} align="flex-end" wrap="nowrap" gap="xs" data-testid={`item-${i}`}>
                      <TextInput style={{ flex: 3 }} label={`${t.links.itemName} ${i + 1}`} maxLength={120} value={line.name} onChange={(e) => setLine(i, { name: e.currentTarget.value })} error={s.fieldError(`items[${i}].name`)} />
                      <TextInput style={{ flex: 1 }} label={t.links.itemQty} inputMode="numeric" value={line.quantity} onChange={(e) => setLine(i, { quantity: e.currentTarget.value })} error={s.fieldError(`items[${i}].quantity`)} />
                      <TextInput style={{ flex: 2 }} label={t.links.itemPrice} inputMode="decimal" value={line.price} onChange={(e) => setLine(i, { price: e.currentTarget.value })} error={s.fieldError(`items[${i}].unitPrice`)} />
                      <ActionIcon variant="subtle" color="red" size="lg" mb={4} aria-label={`${t.links.removeItem} ${i + 1}`} disabled={f.items.length === 1}
                        onClick={() => set({ items: f.items.filter((_, j) => j !== i) })}>×</ActionIcon>
                    </Group>
                  ))}
                  <Button variant="light" size="xs" style={{ alignSelf: 'flex-start' }} disabled={f.items.length >= 50}
                    onClick={() => set({ items: [...f.items, { name: '', quantity: '1', price: '' }] })}>{t.links.addItem}</Button>
                </Stack>
              ) : null}
              <Checkbox.Group label={t.links.customerFields} value={f.customerFields} onChange={(v) => set({ customerFields: v as Field[] })} error={s.fieldError('customerFields')}>
                <Group mt={6}>
                  {(['name', 'email', 'taxId', 'phone'] as const).map((k) => <Checkbox key={k} value={k} label={t.links.fields[k]} />)}
                </Group>
              </Checkbox.Group>
              <Title order={2} size="h5" mt="xs">{t.links.limits}</Title>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <TextInput label={t.links.maxPayments} inputMode="numeric" value={f.maxPayments} onChange={(e) => set({ maxPayments: e.currentTarget.value })} error={s.fieldError('maxPayments')} />
                <TextInput type="date" label={t.links.activeUntil} value={f.activeUntil} onChange={(e) => set({ activeUntil: e.currentTarget.value })} error={s.fieldError('activeUntil')} />
              </SimpleGrid>
              <TextInput label={t.links.checkoutMinutes} inputMode="numeric" value={f.checkoutMinutes} onChange={(e) => set({ checkoutMinutes: e.currentTarget.value })} error={s.fieldError('checkoutExpiresIn')} />
              <TextInput label={t.links.completionUrl} type="url" placeholder="https://" value={f.completionUrl} onChange={(e) => set({ completionUrl: e.currentTarget.value })} error={s.fieldError('completionUrl')} />
              {/* An error no visible input claims (`items: total must be >= 100`, `amountRange: min must be <= max`) shows here. */}
              <ErrorAlert message={s.otherError([...FIELDS, ...priceInputs(f)])} />
              <Button type="submit" loading={s.busy}>{t.links.submit}</Button>
            </Stack>
          </form>
        </Paper>
        <Stack gap="xs" style={{ alignSelf: 'flex-start', position: 'sticky', top: 76 }}>
          <Title order={2} size="h4">{t.links.preview}</Title>
          <Text size="sm" c="dimmed">{t.links.previewHint}</Text>
          <PagePreview path="/payment-link-preview" body={previewBody(f, t)} title={t.links.preview} testId="link-preview" />
        </Stack>
      </SimpleGrid>
    </Stack>
  );
}
