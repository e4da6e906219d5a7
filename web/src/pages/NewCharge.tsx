import { useState } from 'react';
import { ActionIcon, Alert, Button, Group, NativeSelect, Paper, SegmentedControl, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useLocation } from 'wouter';
import { saoPauloDate } from '../../../src/calendar/sao-paulo.rules';
import { checkDueDateTerms } from '../../../src/charges/due-date-check.rules';
import { DEFAULT_DAYS_AFTER_DUE, effectiveDueDate, type DueDateTerms } from '../../../src/charges/due-date.rules';
import { api, ApiError, type Body, type Charge } from '../api';
import { ErrorAlert, explainError, PageHeader, useSubmit } from '../components';
import { CustomerPicker } from '../customer-picker';
import { isPercentMode, SampleTable, samples } from '../due-date';
import { civilDay, parsePercent, parseReais } from '../format';
import { useLang, type Dict } from '../i18n';

type Kind = 'immediate' | 'due';
type ChargeCreate = Body<'/transparents/create', 'post'>;
/** A rule as typed: `mode` '' is no rule. */
interface Rule { mode: string; value: string }
interface Tier { date: string; value: string }
interface Form {
  kind: Kind; amount: string; description: string; customerId: string; expiresIn: string;
  dueDate: string; daysAfterDue: string; fine: Rule; interest: Rule; discount: Rule; tiers: Tier[]; rebate: Rule;
}

const NO_RULE: Rule = { mode: '', value: '' };
const EMPTY: Form = {
  kind: 'immediate', amount: '', description: '', customerId: '', expiresIn: '',
  dueDate: '', daysAfterDue: String(DEFAULT_DAYS_AFTER_DUE), fine: NO_RULE, interest: NO_RULE, discount: NO_RULE, tiers: [{ date: '', value: '' }], rebate: NO_RULE,
};
const FIELDS = ['amount', 'description', 'customerId', 'expiresIn', 'dueDate', 'daysAfterDue', 'fine', 'interest', 'discount', 'rebate'];
const MODES = {
  fine: ['FIXED', 'PERCENT'],
  interest: ['AMOUNT_PER_DAY', 'PERCENT_PER_DAY', 'PERCENT_PER_MONTH', 'PERCENT_PER_YEAR'],
  discount: ['FIXED_UNTIL', 'PERCENT_UNTIL', 'AMOUNT_PER_DAY_EARLY', 'PERCENT_PER_DAY_EARLY'],
  rebate: ['FIXED', 'PERCENT'],
} as const;
type RuleName = keyof typeof MODES;
const isTiered = (mode: string) => mode.endsWith('_UNTIL');

/** A typed value that does not read: an error on its field (strict), or nothing (the preview). */
class Unread extends Error {}

/**
 * The due-date part of the create body from the form. `strict` (the create): a value that does not read is an error
 * named after its field, shown beside it; otherwise (the preview while typing) the form is not ready yet.
 */
function dueDateBody(f: Form, amount: number, t: Dict, strict: boolean): DueDateTerms {
  const fail = (field: string, reason: string): never => {
    throw strict ? new ApiError(400, 'VALIDATION_ERROR', `${field}: ${reason}`) : new Unread();
  };
  const number = (mode: string, text: string, field: string) =>
    (isPercentMode(mode) ? parsePercent(text) : parseReais(text)) ?? fail(field, t.newCharge.invalidNumber);
  // The modes are the select's options, which are the API's.
  const rule = (name: RuleName, r: Rule) => (r.mode ? { mode: r.mode as never, value: number(r.mode, r.value, `${name}.value`) } : null);
  const days = f.daysAfterDue.trim();
  if (!/^\d+$/.test(days)) fail('daysAfterDue', t.newCharge.wholeDays);
  if (!f.dueDate) fail('dueDate', t.newCharge.dateMissing);
  let discount: DueDateTerms['discount'] = null;
  if (isTiered(f.discount.mode)) {
    const mode = f.discount.mode as 'FIXED_UNTIL' | 'PERCENT_UNTIL';
    discount = { mode, tiers: f.tiers.map((tier, i) => ({ date: tier.date || fail(`discount.tiers[${i}].date`, t.newCharge.dateMissing), value: number(mode, tier.value, `discount.tiers[${i}].value`) })) };
  } else if (f.discount.mode) {
    discount = rule('discount', f.discount);
  }
  return {
    amount, dueDate: f.dueDate, daysAfterDue: Number(days),
    fine: rule('fine', f.fine), interest: rule('interest', f.interest), discount, rebate: rule('rebate', f.rebate),
  };
}

/** The terms as the create body carries them: rules left out when absent. */
function withoutNulls(terms: DueDateTerms): Partial<ChargeCreate> {
  return Object.fromEntries(Object.entries(terms).filter(([k, v]) => v !== null && k !== 'amount'));
}

/** The amounts of the sample days, or why there are none yet: the API's own creation check, then its rule. */
function Preview({ f, today }: { f: Form; today: string }) {
  const { t, lang } = useLang();
  const amount = parseReais(f.amount);
  let terms: DueDateTerms | null = null;
  try {
    terms = amount === null ? null : dueDateBody(f, amount, t, false);
  } catch (e) {
    if (!(e instanceof Unread)) throw e;
  }
  const problem = terms ? checkDueDateTerms(terms, today) : null;
  const effective = terms && !problem ? effectiveDueDate(terms.dueDate) : null;
  return (
    <Paper withBorder p="md" data-testid="due-preview">
      <Stack gap="xs">
        <Title order={2} size="h4">{t.dueDate.samples}</Title>
        <Text size="xs" c="dimmed">{t.dueDate.samplesHint}</Text>
        {!terms ? <Text size="sm" c="dimmed">{t.dueDate.samplesWaiting}</Text>
          : problem ? <Alert color="yellow" data-testid="due-preview-problem">{explainError(t, `${problem.field}: ${problem.reason}`)}</Alert>
            : (
              <>
                {effective !== terms.dueDate ? (
                  <Alert color="blue" data-testid="due-moved">{t.dueDate.moved(civilDay(terms.dueDate, lang, true), civilDay(effective, lang, true))}</Alert>
                ) : null}
                <SampleTable rows={samples(terms, today, t)} />
              </>
            )}
      </Stack>
    </Paper>
  );
}

/** One rule: its mode (or none) and its value, or for a tiered discount its 1 to 3 dated tiers. */
function RuleInputs({ name, f, set, error }: {
  name: RuleName; f: Form; set: (patch: Partial<Form>) => void; error: (...n: string[]) => string | undefined;
}) {
  const { t, lang } = useLang();
  const r = f[name];
  const unit = isPercentMode(r.mode) ? t.dueDate.percent : t.dueDate.reais;
  const placeholder = isPercentMode(r.mode) ? '2,50 %' : '10,00';
  const exact = error(name) && !error(`${name}.value`) && !error(`${name}.tiers`) ? error(name) : undefined;
  return (
    <Stack gap="xs">
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <NativeSelect style={{ flex: 3 }} label={t.dueDate[name]} value={r.mode} error={exact}
          onChange={(e) => set({ [name]: { ...r, mode: e.currentTarget.value } })}
          data={[{ value: '', label: t.dueDate.none }, ...MODES[name].map((m) => ({ value: m, label: t.dueDate.modes[m] ?? m }))]} />
        {r.mode && !isTiered(r.mode) ? (
          <TextInput style={{ flex: 2 }} label={unit} aria-label={`${t.dueDate[name]}: ${unit}`} inputMode="decimal" placeholder={placeholder} value={r.value} error={error(`${name}.value`)}
            onChange={(e) => set({ [name]: { ...r, value: e.currentTarget.value } })} />
        ) : null}
      </Group>
      {name === 'discount' && isTiered(r.mode) ? (
        <Stack gap="xs" pl="sm" style={{ borderLeft: '2px solid var(--mantine-color-gray-3)' }}>
          {f.tiers.map((tier, i) => {
            const setTier = (patch: Partial<Tier>) => set({ tiers: f.tiers.map((x, j) => (j === i ? { ...x, ...patch } : x)) });
            return (
              <Group key={i} align="flex-end" gap="xs" wrap="nowrap">
                <TextInput style={{ flex: 3 }} type="date" label={t.dueDate.tierDate} aria-label={`${t.dueDate.tier} ${i + 1}: ${t.dueDate.tierDate}`} value={tier.date}
                  description={`${t.dueDate.tier} ${i + 1}${tier.date ? `: ${civilDay(tier.date, lang, true)}` : ''}`}
                  error={error(`discount.tiers[${i}].date`)} onChange={(e) => setTier({ date: e.currentTarget.value })} />
                <TextInput style={{ flex: 2 }} label={unit} aria-label={`${t.dueDate.tier} ${i + 1}: ${unit}`} inputMode="decimal" placeholder={isPercentMode(r.mode) ? '5,00 %' : '50,00'} value={tier.value}
                  error={error(`discount.tiers[${i}].value`)} onChange={(e) => setTier({ value: e.currentTarget.value })} />
                {f.tiers.length > 1 ? (
                  <ActionIcon mb={6} variant="subtle" color="red" aria-label={`${t.dueDate.removeTier} ${i + 1}`}
                    onClick={() => set({ tiers: f.tiers.filter((_, j) => j !== i) })}>×</ActionIcon>
                ) : null}
              </Group>
            );
          })}
          {error('discount.tiers') && !f.tiers.some((_, i) => error(`discount.tiers[${i}]`)) ? <Text size="sm" c="red">{error('discount.tiers')}</Text> : null}
          {f.tiers.length < 3 ? (
            <Button variant="subtle" size="xs" style={{ alignSelf: 'flex-start' }} onClick={() => set({ tiers: [...f.tiers, { date: '', value: '' }] })}>{t.dueDate.addTier}</Button>
          ) : null}
        </Stack>
      ) : null}
    </Stack>
  );
}

export function NewCharge() {
  const { t, lang } = useLang();
  const [, navigate] = useLocation();
  const [f, setF] = useState<Form>(EMPTY);
  const s = useSubmit();
  // Editing the field an error names takes the error away: it was about what is no longer there.
  const set = (patch: Partial<Form>) => {
    const field = s.error?.field;
    const edited = Object.keys(patch).map((k) => (k === 'tiers' ? 'discount' : k));
    if (field && edited.some((k) => field === k || field.startsWith(`${k}.`) || field.startsWith(`${k}[`))) s.setError(null);
    setF({ ...f, ...patch });
  };
  // The São Paulo date the API will call today: the creation check and the samples start there.
  const today = saoPauloDate(new Date());
  const due = f.kind === 'due';
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const created = await s.run(async () => {
      const amount = parseReais(f.amount);
      if (amount === null) throw new ApiError(400, 'VALIDATION_ERROR', t.newCharge.invalidAmount);
      const body: ChargeCreate = {
        method: 'PIX', amount,
        ...(f.description.trim() ? { description: f.description.trim() } : {}),
        ...(f.customerId ? { customerId: f.customerId } : {}),
      };
      if (due) return api.post<Charge>('/transparents/create', { ...body, ...withoutNulls(dueDateBody(f, amount, t, true)) });
      const minutes = f.expiresIn.trim() ? Number(f.expiresIn) : null;
      if (minutes !== null && !Number.isInteger(minutes)) throw new ApiError(400, 'VALIDATION_ERROR', 'expiresIn: must be a whole number of minutes');
      return api.post<Charge>('/transparents/create', { ...body, ...(minutes !== null ? { expiresIn: minutes * 60 } : {}) });
    });
    if (created) navigate(`/charges/${created.id}`);
  };
  const fields = (
    <Paper withBorder p="md">
      <Stack>
        <Stack gap={4}>
          <Text size="sm" fw={500} id="charge-kind">{t.newCharge.kind}</Text>
          <SegmentedControl aria-labelledby="charge-kind" value={f.kind} onChange={(v) => { s.setError(null); set({ kind: v as Kind }); }}
            data={[{ value: 'immediate', label: t.newCharge.immediate }, { value: 'due', label: t.newCharge.withDueDate }]} />
        </Stack>
        {due ? <Alert color="blue" data-testid="due-needs">{t.newCharge.dueNeeds}</Alert> : null}
        <TextInput label={t.newCharge.amount} description={t.newCharge.amountHint} inputMode="decimal" required placeholder="10,50"
          value={f.amount} onChange={(e) => set({ amount: e.currentTarget.value })} error={s.fieldError('amount')} />
        <TextInput label={t.newCharge.description} maxLength={140} value={f.description}
          onChange={(e) => set({ description: e.currentTarget.value })} error={s.fieldError('description')} />
        <CustomerPicker label={due ? t.newCharge.payer : t.newCharge.customer} description={due ? t.newCharge.payerHint : undefined} payer={due}
          value={f.customerId} onChange={(customerId) => set({ customerId })} error={s.fieldError('customerId')} />
        {due ? (
          <>
            <Group gap="xs" align="flex-end" wrap="nowrap">
              <TextInput style={{ flex: 3 }} type="date" label={t.dueDate.dueDate} required min={today} value={f.dueDate}
                description={f.dueDate ? civilDay(f.dueDate, lang, true) : undefined}
                onChange={(e) => set({ dueDate: e.currentTarget.value })} error={s.fieldError('dueDate')} />
              <TextInput style={{ flex: 2 }} label={t.dueDate.daysAfterDue} inputMode="numeric" value={f.daysAfterDue}
                onChange={(e) => set({ daysAfterDue: e.currentTarget.value })} error={s.fieldError('daysAfterDue')} />
            </Group>
            <Text size="xs" c="dimmed" mt={-8}>{t.dueDate.daysAfterDueHint}</Text>
            <Title order={2} size="h5">{t.dueDate.rules}</Title>
            {(['discount', 'fine', 'interest', 'rebate'] as const).map((name) => <RuleInputs key={name} name={name} f={f} set={set} error={s.fieldError} />)}
          </>
        ) : (
          <TextInput label={t.newCharge.expiresIn} inputMode="numeric" value={f.expiresIn}
            onChange={(e) => set({ expiresIn: e.currentTarget.value })} error={s.fieldError('expiresIn')} />
        )}
      </Stack>
    </Paper>
  );
  // The sample days sit between the fields and the button: on a phone too, they are read before creating.
  return (
    <Stack maw={due ? 1100 : 520}>
      <PageHeader title={t.newCharge.title} />
      <form onSubmit={submit} noValidate>
        <Stack>
          {due ? (
            <SimpleGrid cols={{ base: 1, md: 2 }} style={{ alignItems: 'start' }}>
              {fields}
              <Preview f={f} today={today} />
            </SimpleGrid>
          ) : fields}
          <ErrorAlert message={s.otherError(FIELDS)} />
          <Button type="submit" loading={s.busy} w={{ base: '100%', md: due ? 'calc(50% - var(--mantine-spacing-md) / 2)' : '100%' }}>{t.newCharge.submit}</Button>
        </Stack>
      </form>
    </Stack>
  );
}
