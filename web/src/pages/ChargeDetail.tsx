import { useState } from 'react';
import { Alert, Group, Image, Paper, SimpleGrid, Stack, Table, Text, TextInput, Timeline, Title } from '@mantine/core';
import { saoPauloDate } from '../../../src/calendar/sao-paulo.rules';
import { amountDue, effectiveDueDate, lastDayToPay, type DueDateTerms } from '../../../src/charges/due-date.rules';
import { api, type Charge } from '../api';
import { ConfirmButton, CopyField, Loading, PageHeader, StatusBadge, useLoad } from '../components';
import { Breakdown, RuleList, termsOf } from '../due-date';
import { civilDay, money, pngSrc, when } from '../format';
import { useLang, type Dict } from '../i18n';
import { useSession } from '../session';
import { useSimulator } from '../simulator';

/** The charge's history as its fields tell it (created, paid, refund, expiry, dispute). */
function history(c: Charge, t: Dict): Array<{ label: string; at: string | null }> {
  const h: Array<{ label: string; at: string | null }> = [{ label: t.history.created, at: c.createdAt }];
  if (c.paidAt) h.push({ label: t.history.paid, at: c.paidAt });
  if (c.status === 'EXPIRED') h.push({ label: t.history.expired, at: c.expiresAt });
  if (c.refund) {
    h.push({ label: t.history.refundRequested, at: c.refund.createdAt });
    if (c.refund.status === 'COMPLETED') h.push({ label: t.history.refundCompleted, at: c.refund.completedAt });
    if (c.refund.status === 'FAILED') h.push({ label: `${t.history.refundFailed}${c.refund.failedReason ? `: ${c.refund.failedReason}` : ''}`, at: c.refund.completedAt });
  }
  if (c.status === 'DISPUTED') h.push({ label: t.history.disputed, at: null });
  return h;
}

/** A due-date charge: its dates, its rules in words, the amount due today (the API's) and, once paid, what was paid. */
function DueDatePanel({ c, terms }: { c: Charge; terms: DueDateTerms }) {
  const { t, lang } = useLang();
  const e = effectiveDueDate(terms.dueDate);
  const rows: Array<[string, string]> = [[t.dueDate.dueDate, civilDay(terms.dueDate, lang, true)]];
  if (e !== terms.dueDate) rows.push([t.dueDate.effectiveDue, civilDay(e, lang, true)]);
  rows.push([t.dueDate.lastDay, civilDay(lastDayToPay(terms), lang, true)]);
  return (
    <Paper withBorder p="md" data-testid="charge-due">
      <Stack gap="sm">
        <Title order={2} size="h4">{t.dueDate.section}</Title>
        <Table variant="vertical" layout="fixed" withRowBorders={false}>
          <Table.Tbody>
            {rows.map(([k, v]) => <Table.Tr key={k}><Table.Th w={170}>{k}</Table.Th><Table.Td>{v}</Table.Td></Table.Tr>)}
          </Table.Tbody>
        </Table>
        {e !== terms.dueDate ? <Text size="sm" c="dimmed">{t.dueDate.moved(civilDay(terms.dueDate, lang, true), civilDay(e, lang, true))}</Text> : null}
        <RuleList terms={terms} />
        {c.amountDue !== null && c.breakdown ? (
          <Stack gap={4}>
            <Text fw={600}>{t.dueDate.dueToday}</Text>
            <Breakdown total={c.amountDue} parts={c.breakdown} testId="amount-due-today" />
          </Stack>
        ) : null}
        {c.paidAmount !== null && c.paidBreakdown ? (
          <Stack gap={4}>
            <Text fw={600}>{t.dueDate.paid}</Text>
            <Breakdown total={c.paidAmount} parts={c.paidBreakdown} testId="amount-paid" />
          </Stack>
        ) : null}
      </Stack>
    </Paper>
  );
}

/** The simulator's payer of a due-date charge pays on a chosen day: what that day's rules make of it. */
function PayDay({ terms, date, setDate }: { terms: DueDateTerms; date: string; setDate: (d: string) => void }) {
  const t = useLang().t;
  const due = date ? amountDue(terms, date) : null;
  return (
    <Stack gap="xs">
      <Text>{t.charges.simulateHint}</Text>
      <TextInput type="date" label={t.dueDate.payDate} value={date} onChange={(e) => setDate(e.currentTarget.value)} />
      <Text size="sm" fw={500} data-testid="pay-day-amount">{due ? t.dueDate.payAmount(money(due.amountDue)) : t.dueDate.notPayable}</Text>
    </Stack>
  );
}

export function ChargeDetail({ id }: { id: string }) {
  const { t, lang } = useLang();
  const { can } = useSession();
  const simulator = useSimulator();
  const charge = useLoad(() => api.get<Charge>(`/transparents/check?id=${encodeURIComponent(id)}`), [id]);
  const [payDate, setPayDate] = useState(() => saoPauloDate(new Date()));
  if (!charge.data) return <Loading error={charge.error} />;
  const c = charge.data;
  const terms = termsOf(c);
  const set = (next: Charge) => charge.setData(next);
  const rows: Array<[string, string]> = [
    [t.common.id, c.id],
    [t.common.created, when(c.createdAt, lang)],
    [t.charges.expiresAt, when(c.expiresAt, lang)],
    [t.charges.paidAt, when(c.paidAt, lang)],
    [t.charges.fee, money(c.fee)],
    [t.charges.net, money(c.netAmount)],
    [t.charges.customer, c.customer ? `${c.customer.name ?? ''} ${c.customer.email}`.trim() : '—'],
    [t.common.description, c.description ?? '—'],
    [t.charges.txid, c.txid],
    [t.charges.end2endId, c.end2endId ?? '—'],
  ];
  // A subscription cycle's charge has its cycle's due date and no rules (no due-date panel).
  if (c.dueDate && !terms) rows.push([t.dueDate.dueDate, civilDay(c.dueDate, lang, true)]);
  if (c.refund) rows.push([t.charges.refundState, `${t.status[c.refund.status] ?? c.refund.status} · ${money(c.refund.amount)}`]);
  const hist = history(c, t);
  return (
    <Stack>
      <PageHeader title={`${money(c.amount)}`}>
        <StatusBadge status={c.status} />
        {c.status === 'PENDING' && simulator && can('operate') ? (
          <ConfirmButton label={t.charges.simulate} color="teal" variant="filled"
            question={terms ? <PayDay terms={terms} date={payDate} setDate={setPayDate} /> : t.charges.simulateHint}
            onConfirm={async () => set(await api.post<Charge>(`/transparents/simulate-payment?id=${encodeURIComponent(c.id)}`, terms ? { date: payDate } : undefined))} />
        ) : null}
        {c.status === 'PAID' && can('money') ? (
          <ConfirmButton label={t.charges.refund} question={t.charges.refundConfirm}
            onConfirm={async () => set(await api.post<Charge>(`/transparents/refund?id=${encodeURIComponent(c.id)}`))} />
        ) : null}
      </PageHeader>
      {terms ? (
        // What the payer pays now, at the top: on a phone the panel with the parts is below the QR code.
        <Text mt={-12} data-testid="charge-due-summary">
          {[
            c.amountDue !== null ? `${t.dueDate.dueToday}: ${money(c.amountDue)}` : null,
            c.paidAmount !== null ? `${t.dueDate.paid}: ${money(c.paidAmount)}` : null,
            `${t.dueDate.dueDate}: ${civilDay(terms.dueDate, lang, true)}`,
          ].filter(Boolean).join(' · ')}
        </Text>
      ) : null}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Paper withBorder p="md">
          <Stack>
            <Title order={2} size="h4">{t.charges.qr}</Title>
            {c.imageBase64 ? <Image src={pngSrc(c.imageBase64)} alt={t.charges.qr} w={240} h={240} fit="contain" data-testid="charge-qr" style={{ imageRendering: 'pixelated' }} /> : null}
            <CopyField label={t.charges.copyPaste} value={c.brCode} testId="charge-brcode" />
            {c.status !== 'PENDING' ? <Alert color="gray">{t.status[c.status]}</Alert> : null}
          </Stack>
        </Paper>
        <Stack>
          {terms ? <DueDatePanel c={c} terms={terms} /> : null}
          <Paper withBorder p="md">
            <Table variant="vertical" layout="fixed" withRowBorders={false}>
              <Table.Tbody>
                {rows.map(([k, v]) => (
                  <Table.Tr key={k}>
                    <Table.Th w={130}>{k}</Table.Th>
                    <Table.Td style={{ wordBreak: 'break-all' }}>{v}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Paper>
          <Paper withBorder p="md">
            <Title order={2} size="h4" mb="sm">{t.charges.history}</Title>
            <Timeline active={hist.length - 1} bulletSize={14} lineWidth={2} data-testid="charge-history">
              {hist.map((h, i) => (
                <Timeline.Item key={i} title={h.label}>
                  <Text size="xs" c="dimmed">{h.at ? when(h.at, lang) : ''}</Text>
                </Timeline.Item>
              ))}
            </Timeline>
          </Paper>
        </Stack>
      </SimpleGrid>
      <Group />
    </Stack>
  );
}
