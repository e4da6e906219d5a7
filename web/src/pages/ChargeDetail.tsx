import { Alert, Group, Image, Paper, SimpleGrid, Stack, Table, Text, Timeline, Title } from '@mantine/core';
import { api, type Charge } from '../api';
import { ConfirmButton, CopyField, Loading, PageHeader, StatusBadge, useLoad } from '../components';
import { money, pngSrc, when } from '../format';
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

export function ChargeDetail({ id }: { id: string }) {
  const { t, lang } = useLang();
  const { can } = useSession();
  const simulator = useSimulator();
  const charge = useLoad(() => api.get<Charge>(`/transparents/check?id=${encodeURIComponent(id)}`), [id]);
  if (!charge.data) return <Loading error={charge.error} />;
  const c = charge.data;
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
  if (c.refund) rows.push([t.charges.refundState, `${t.status[c.refund.status] ?? c.refund.status} · ${money(c.refund.amount)}`]);
  const hist = history(c, t);
  return (
    <Stack>
      <PageHeader title={`${money(c.amount)}`}>
        <StatusBadge status={c.status} />
        {c.status === 'PENDING' && simulator && can('operate') ? (
          <ConfirmButton label={t.charges.simulate} question={t.charges.simulateHint} color="teal" variant="filled"
            onConfirm={async () => set(await api.post<Charge>(`/transparents/simulate-payment?id=${encodeURIComponent(c.id)}`))} />
        ) : null}
        {c.status === 'PAID' && can('money') ? (
          <ConfirmButton label={t.charges.refund} question={t.charges.refundConfirm}
            onConfirm={async () => set(await api.post<Charge>(`/transparents/refund?id=${encodeURIComponent(c.id)}`))} />
        ) : null}
      </PageHeader>
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
