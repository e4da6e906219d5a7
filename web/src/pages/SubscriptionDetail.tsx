import { useEffect, useState } from 'react';
import { Alert, Anchor, Button, Group, Image, NativeSelect, Paper, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { Link } from 'wouter';
import {
  ISSUE_DAYS_BEFORE, LATEST_ISSUE_DAYS_BEFORE, cycleDueDate, cycleIssueDate, cycleOnDueDate, hasCycle
} from '../../../src/subscriptions/cycle.rules';
import { api, ApiError, type CycleCharge, type CycleChargeCreate, type Subscription } from '../api';
import { ConfirmButton, CopyField, Empty, ErrorAlert, Facts, Loading, PageHeader, StatusBadge, useLoad, usePaged, useSubmit } from '../components';
import { CycleDates, spToday } from '../cycles';
import { civilDay, money, parseReais, pngSrc, when } from '../format';
import { useLang } from '../i18n';
import { useSession } from '../session';
import { ResponsiveTable } from '../table';
import { amountLine, SubscriptionStatus } from './Subscriptions';

/** How often a subscription waiting for the payer is read again, so its authorization shows without a reload. */
const WAITING_REFRESH_MS = 5_000;
/** Due dates offered for a variable cycle's charge. */
const CHARGEABLE_SHOWN = 6;

/**
 * The due dates a variable cycle's charge may still be asked for: cycles the API would accept today (its own
 * rule: issued at least 2 days ahead, cycleIssueDate) that have no charge yet.
 */
function chargeableDueDates(s: Subscription, charged: Set<string>): string[] {
  const today = spToday();
  const dates: string[] = [];
  for (let n = 0; dates.length < CHARGEABLE_SHOWN && hasCycle(s.startDate, s.frequency, s.endDate, n); n++) {
    const due = cycleDueDate(s.startDate, s.frequency, n);
    if (cycleIssueDate(due, today) !== null && !charged.has(due)) dates.push(due);
  }
  return dates;
}

/** A variable-amount subscription's cycle, charged by the merchant (docs/contract/subscriptions.md#variable-amount). */
function ChargeCycle({ sub, charged, onIssued }: { sub: Subscription; charged: Set<string>; onIssued: () => void }) {
  const { t, lang } = useLang();
  const options = chargeableDueDates(sub, charged);
  const [dueDate, setDueDate] = useState('');
  const [amount, setAmount] = useState('');
  const [issued, setIssued] = useState(false);
  const s = useSubmit();
  const chosen = options.includes(dueDate) ? dueDate : options[0] ?? '';
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setIssued(false);
    const done = await s.run(async () => {
      const cents = parseReais(amount);
      if (cents === null) throw new ApiError(400, 'VALIDATION_ERROR', `amount: ${t.subs.invalidAmount}`);
      const body: CycleChargeCreate = { amount: cents, dueDate: chosen };
      return api.post<unknown>(`/subscriptions/${encodeURIComponent(sub.id)}/charges`, body);
    });
    if (done) {
      setAmount('');
      setIssued(true);
      onIssued();
    }
  };
  return (
    <Paper withBorder p="md" data-testid="charge-cycle">
      <form onSubmit={submit} noValidate>
        <Stack>
          <Title order={2} size="h4">{t.subs.chargeTitle}</Title>
          <Text size="sm" c="dimmed">{t.subs.chargeHint(money(sub.minAmount), LATEST_ISSUE_DAYS_BEFORE)}</Text>
          {options.length === 0 ? <Alert color="gray">{t.subs.noCycleLeft(LATEST_ISSUE_DAYS_BEFORE)}</Alert> : (
            <>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <NativeSelect label={t.subs.chargeDue} value={chosen} onChange={(e) => setDueDate(e.currentTarget.value)}
                  data={options.map((d) => ({ value: d, label: civilDay(d, lang, true) }))} error={s.fieldError('dueDate')} />
                <TextInput label={t.subs.chargeAmount} inputMode="decimal" placeholder={money(sub.minAmount).replace(/^R\$\s/, '')}
                  value={amount} onChange={(e) => setAmount(e.currentTarget.value)} error={s.fieldError('amount')} />
              </SimpleGrid>
              <ErrorAlert message={s.otherError(['dueDate', 'amount'])} />
              {issued ? <Alert color="teal" role="status">{t.subs.chargeIssued}</Alert> : null}
              <Button type="submit" loading={s.busy} style={{ alignSelf: 'flex-start' }}>{t.subs.chargeSubmit}</Button>
            </>
          )}
        </Stack>
      </form>
    </Paper>
  );
}

function Attempts({ c }: { c: CycleCharge }) {
  const { t, lang } = useLang();
  if (!c.attempts?.length) return <Text size="sm" c="dimmed">{t.subs.noAttempts}</Text>;
  return (
    <Stack gap={2} data-testid="cycle-attempts">
      {c.attempts.map((a, i) => (
        <Text key={i} size="sm" c={a.outcome === 'PAID' ? 'teal.8' : 'red.8'}>
          {civilDay(a.date, lang)} · {t.subs.outcomes[a.outcome] ?? a.outcome}
        </Text>
      ))}
    </Stack>
  );
}

export function SubscriptionDetail({ id }: { id: string }) {
  const { t, lang } = useLang();
  const { can } = useSession();
  const sub = useLoad(() => api.get<Subscription>(`/subscriptions/${encodeURIComponent(id)}`), [id]);
  const cycles = usePaged<CycleCharge>((c) => `/subscriptions/${encodeURIComponent(id)}/charges?limit=20${c ? `&${c}` : ''}`, [id]);
  const status = sub.data?.status;
  // The payer answers at their bank, not here: while the subscription waits, read it again now and then.
  useEffect(() => {
    if (status !== 'CREATED') return;
    const timer = setInterval(sub.reload, WAITING_REFRESH_MS);
    return () => clearInterval(timer);
  }, [status]); // eslint-disable-line react-hooks/exhaustive-deps
  if (!sub.data) return <Loading error={sub.error} />;
  const s = sub.data;
  const reload = () => { sub.reload(); cycles.reload(); };
  const nextCycle = s.nextDueDate ? cycleOnDueDate(s.startDate, s.frequency, s.endDate, s.nextDueDate) : null;
  const charged = new Set((cycles.items ?? []).map((c) => c.dueDate).filter((d): d is string => !!d));
  const ended = s.endedAt ? `${when(s.endedAt, lang)}${s.endedBy ? ` (${t.subs.endedBy[s.endedBy] ?? s.endedBy})` : ''}` : '—';
  const open = s.status === 'CREATED' || s.status === 'ACTIVE';
  const panels = [
    s.status === 'CREATED' ? (
      <Paper key="authorization" withBorder p="md" data-testid="subscription-authorization">
        <Stack>
          <Title order={2} size="h4">{t.subs.authorization}</Title>
          <Text size="sm">{t.subs.waiting[s.journey]}</Text>
          {s.imageBase64 ? <Image src={pngSrc(s.imageBase64)} alt={t.subs.qr} w={240} h={240} fit="contain" data-testid="subscription-qr" style={{ imageRendering: 'pixelated' }} /> : null}
          {s.brCode ? <CopyField label={t.subs.copyPaste} value={s.brCode} testId="subscription-brcode" /> : null}
          <Text size="sm" c="dimmed">{t.subs.authorizeBy(civilDay(s.startDate, lang))} {t.subs.autoRefresh}</Text>
        </Stack>
      </Paper>
    ) : null,
    s.firstCharge ? (
      <Paper key="first" withBorder p="md" data-testid="subscription-first-charge">
        <Stack gap="xs">
          <Title order={2} size="h4">{t.subs.firstCharge}</Title>
          <Group gap="sm">
            <Text fw={600}>{money(s.firstCharge.amount)}</Text>
            <StatusBadge status={s.firstCharge.status} />
            <Anchor component={Link} href={`/charges/${s.firstCharge.id}`} size="sm">{t.subs.openCharge}</Anchor>
          </Group>
        </Stack>
      </Paper>
    ) : null,
    nextCycle !== null && open ? (
      <Paper key="upcoming" withBorder p="md">
        <Title order={2} size="h4" mb="xs">{t.subs.upcoming}</Title>
        <CycleDates startDate={s.startDate} frequency={s.frequency} endDate={s.endDate} from={nextCycle} count={3} testId="subscription-upcoming" />
      </Paper>
    ) : null,
    s.status === 'ACTIVE' && s.minAmount !== null && can('operate') ? <ChargeCycle key="charge" sub={s} charged={charged} onIssued={reload} /> : null,
  ].filter(Boolean);
  const facts = (
    <Paper withBorder p="md">
      <Facts testId="subscription-facts" rows={[
        [t.subs.customer, [s.customer.name, s.customer.email].filter(Boolean).join(' · ')],
        [t.subs.taxId, s.customer.taxId ?? '—'],
        [t.subs.amount, amountLine(s, t)],
        [t.subs.frequency, t.subs.frequencies[s.frequency] ?? s.frequency],
        [t.subs.start, civilDay(s.startDate, lang)],
        [t.subs.end, s.endDate ? civilDay(s.endDate, lang) : t.subs.openEnded],
        [t.subs.nextDue, civilDay(s.nextDueDate, lang)],
        [t.subs.journey, <Stack key="j" gap={0}><Text size="sm">{t.subs.journeys[s.journey]}</Text><Text size="xs" c="dimmed">{t.subs.journeyHints[s.journey]}</Text></Stack>],
        [t.subs.retryPolicy, t.subs.retryPolicies[s.retryPolicy] ?? s.retryPolicy],
        [t.subs.contract, s.contract],
        [t.common.description, s.description ?? '—'],
        [t.common.created, when(s.createdAt, lang)],
        [t.subs.authorizedAt, when(s.authorizedAt, lang)],
        [t.subs.endedAt, ended],
        [t.subs.id, <Text key="id" ff="monospace" fz="xs">{s.id}</Text>],
      ]} />
    </Paper>
  );
  return (
    <Stack>
      <PageHeader title={s.customer.name ?? s.customer.email}>
        <SubscriptionStatus status={s.status} />
        <Button variant="default" size="sm" onClick={reload}>{t.common.refresh}</Button>
        {open && can('money') ? (
          <ConfirmButton label={t.subs.cancel} question={t.subs.cancelConfirm} dismiss={t.subs.keep}
            onConfirm={async () => { sub.setData(await api.post<Subscription>(`/subscriptions/${encodeURIComponent(s.id)}/cancel`)); cycles.reload(); }} />
        ) : null}
      </PageHeader>
      <Text fw={600} fz="lg" mt={-8} data-testid="subscription-summary">{amountLine(s, t)} · {t.subs.frequencies[s.frequency] ?? s.frequency}</Text>
      {/* What the merchant acts on (the QR to show, the next dates, a cycle to charge) beside the facts; the facts alone once it ended. */}
      {panels.length ? (
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <Stack>{panels}</Stack>
          {facts}
        </SimpleGrid>
      ) : facts}
      <Paper withBorder p="md">
        <Stack>
          <Title order={2} size="h4">{t.subs.cycles}</Title>
          <Text size="sm" c="dimmed">{s.amount !== null ? t.subs.fixedIssue(ISSUE_DAYS_BEFORE) : t.subs.variableIssue}</Text>
          {!cycles.items ? <Loading error={cycles.error} /> : cycles.items.length === 0 ? <Empty /> : (
            <ResponsiveTable rows={cycles.items} rowKey={(c) => c.id} testId="subscription-cycles" rowAttrs={(c) => ({ 'data-charge-id': c.id })} columns={[
              { label: t.subs.dueDate, render: (c) => <Text size="sm" fw={600}>{civilDay(c.dueDate, lang)}</Text> },
              { label: t.common.amount, render: (c) => money(c.amount) },
              { label: t.common.status, render: (c) => <StatusBadge status={c.status} /> },
              { label: t.subs.attempts, render: (c) => <Attempts c={c} /> },
              { label: t.subs.failedReason, render: (c) => (c.failedReason ? t.subs.outcomes[c.failedReason] ?? c.failedReason : null) },
              { label: t.common.details, render: (c) => <Anchor component={Link} href={`/charges/${c.id}`} size="sm">{t.subs.openCharge}</Anchor> },
            ]} />
          )}
          {cycles.pager}
        </Stack>
      </Paper>
    </Stack>
  );
}
