import { Anchor, Paper, SimpleGrid, Stack, Table, Text, Title, Button } from '@mantine/core';
import { Link } from 'wouter';
import { api, type Charge, type Checkout } from '../api';
import { ConfirmButton, Facts, Loading, PageHeader, StatusBadge, useLoad } from '../components';
import { money, when } from '../format';
import { useLang } from '../i18n';
import { useSession } from '../session';
import { customerLine } from './Checkouts';

/** A checkout: its cart, its page, and the charge it owns, whose money it is (docs/contract/checkouts.md#checkouts). */
export function CheckoutDetail({ id }: { id: string }) {
  const { t, lang } = useLang();
  const { can } = useSession();
  const checkout = useLoad(() => api.get<Checkout>(`/checkouts/${encodeURIComponent(id)}`), [id]);
  const chargeId = checkout.data?.chargeId;
  const charge = useLoad(() => (chargeId ? api.get<Charge>(`/transparents/check?id=${encodeURIComponent(chargeId)}`) : Promise.resolve(null)), [chargeId]);
  if (!checkout.data) return <Loading error={checkout.error} />;
  const k = checkout.data;
  const c = charge.data;
  return (
    <Stack>
      <PageHeader title={money(k.amount)}>
        <StatusBadge status={k.status} />
        {k.status === 'PAID' && can('money') ? (
          <ConfirmButton label={t.checkouts.refund} question={t.checkouts.refundConfirm}
            onConfirm={async () => { checkout.setData(await api.post<Checkout>(`/checkouts/${encodeURIComponent(k.id)}/refund`)); charge.reload(); }} />
        ) : null}
      </PageHeader>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Stack>
          <Paper withBorder p="md">
            <Title order={2} size="h4" mb="sm">{t.checkouts.items}</Title>
            <Table withRowBorders data-testid="checkout-items">
              <Table.Thead><Table.Tr><Table.Th>{t.checkouts.item}</Table.Th><Table.Th ta="right">{t.checkouts.quantity}</Table.Th><Table.Th ta="right">{t.checkouts.lineTotal}</Table.Th></Table.Tr></Table.Thead>
              <Table.Tbody>{k.items.map((i, n) => <Table.Tr key={n}><Table.Td>{i.name}</Table.Td><Table.Td ta="right">{i.quantity}</Table.Td><Table.Td ta="right">{money(i.quantity * i.unitPrice)}</Table.Td></Table.Tr>)}</Table.Tbody>
              <Table.Tfoot><Table.Tr><Table.Th colSpan={2}>{t.checkouts.total}</Table.Th><Table.Th ta="right">{money(k.amount)}</Table.Th></Table.Tr></Table.Tfoot>
            </Table>
          </Paper>
          <Paper withBorder p="md">
            <Facts rows={[
              [t.common.id, k.id],
              [t.checkouts.payPage, <Anchor key="url" href={k.url} target="_blank" rel="noopener noreferrer">{k.url}</Anchor>],
              [t.common.created, when(k.createdAt, lang)],
              [t.checkouts.expiresAt, when(k.expiresAt, lang)],
              [t.checkouts.paidAt, when(k.paidAt, lang)],
              [t.checkouts.customer, customerLine(k.customer)],
              [t.common.description, k.description ?? '—'],
              [t.checkouts.externalId, k.externalId ?? '—'],
              [t.checkouts.paymentLink, k.paymentLinkId ? <Anchor key="link" component={Link} href={`/payment-links/${k.paymentLinkId}`}>{k.paymentLinkId}</Anchor> : '—'],
              [t.checkouts.completionUrl, k.completionUrl ?? '—'],
            ]} />
          </Paper>
        </Stack>
        <Paper withBorder p="md" data-testid="checkout-charge">
          <Stack>
            <Title order={2} size="h4">{t.checkouts.charge}</Title>
            <Text size="sm" c="dimmed">{t.checkouts.chargeHint}</Text>
            {!c ? <Loading error={charge.error} /> : (
              <Facts rows={[
                [t.common.id, c.id],
                [t.common.status, <StatusBadge key="s" status={c.status} />],
                [t.charges.fee, money(c.fee)],
                [t.charges.net, money(c.netAmount)],
                [t.checkouts.txid, c.txid],
                [t.checkouts.end2endId, c.end2endId ?? '—'],
                ...(c.refund ? [[t.checkouts.refundState, `${t.status[c.refund.status] ?? c.refund.status} · ${money(c.refund.amount)}`] as [string, string]] : []),
              ]} />
            )}
            <Button component={Link} href={`/charges/${k.chargeId}`} variant="light" style={{ alignSelf: 'flex-start' }}>{t.checkouts.openCharge}</Button>
          </Stack>
        </Paper>
      </SimpleGrid>
    </Stack>
  );
}
