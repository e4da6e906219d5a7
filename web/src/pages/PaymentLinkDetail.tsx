import { Anchor, Button, Group, Image, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { api, query, type Branding, type CheckoutListItem, type LinkQrCode, type PaymentLink } from '../api';
import { ConfirmButton, CopyField, Empty, Loading, PageHeader, StatusBadge, useLoad, usePaged } from '../components';
import { money, when } from '../format';
import { useLang } from '../i18n';
import { useSession } from '../session';
import { CheckoutTable } from './Checkouts';
import { linkPayments, linkPrice } from './PaymentLinks';

function Stat({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Paper withBorder p="md">
      <Text size="sm" c="dimmed">{label}</Text>
      <Text size="xl" fw={700} data-testid={testId}>{value}</Text>
    </Paper>
  );
}

export function PaymentLinkDetail({ id }: { id: string }) {
  const { t, lang } = useLang();
  const { can } = useSession();
  const path = `/payment-links/${encodeURIComponent(id)}`;
  const link = useLoad(() => api.get<PaymentLink>(path), [id]);
  const qr = useLoad(() => api.get<LinkQrCode>(`${path}/qr-code`), [id]);
  const brand = useLoad(() => api.get<Branding>('/me/branding'), []);
  const checkouts = usePaged<CheckoutListItem>((c) => `/checkouts${query({ paymentLinkId: id, limit: 10 })}${c ? `&${c}` : ''}`, [id]);
  if (!link.data) return <Loading error={link.error} />;
  const l = link.data;
  const refresh = () => { link.reload(); checkouts.reload(); };
  const rows: Array<[string, string]> = [
    [t.links.price, linkPrice(l, t)],
    [t.links.customerFields, l.customerFields.map((f) => t.links.fields[f] ?? f).join(', ') || '—'],
    [t.checkouts.completionUrl, l.completionUrl ?? '—'],
    [t.common.description, l.description ?? '—'],
    [t.links.created, when(l.createdAt, lang)],
    [t.common.id, l.id],
  ];
  return (
    <Stack>
      <PageHeader title={l.name}>
        <StatusBadge status={l.status} />
        <Button variant="default" onClick={refresh}>{t.common.refresh}</Button>
        {can('operate') ? (l.status === 'ACTIVE'
          ? <ConfirmButton key="deactivate" label={t.links.deactivate} question={t.links.deactivateConfirm} onConfirm={async () => link.setData(await api.patch<PaymentLink>(path, { active: false }))} />
          : <ConfirmButton key="activate" label={t.links.activate} question={t.links.activateConfirm} color="teal" onConfirm={async () => link.setData(await api.patch<PaymentLink>(path, { active: true }))} />) : null}
      </PageHeader>
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Stat label={t.links.payments} value={linkPayments(l)} testId="link-payments" />
        <Stat label={t.links.received} value={money(l.amountReceived)} testId="link-received" />
        <Stat label={t.links.until} value={l.activeUntil ? when(l.activeUntil, lang) : t.links.forever} testId="link-until" />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Paper withBorder p="md">
          <Stack>
            <CopyField label={t.links.url} value={l.url} testId="link-url" />
            <Anchor href={l.url} target="_blank" rel="noopener noreferrer">{t.links.openPage}</Anchor>
            {l.items ? (
              <Table withRowBorders>
                <Table.Thead><Table.Tr><Table.Th>{t.checkouts.item}</Table.Th><Table.Th ta="right">{t.checkouts.quantity}</Table.Th><Table.Th ta="right">{t.checkouts.unitPrice}</Table.Th></Table.Tr></Table.Thead>
                <Table.Tbody>{l.items.map((i, n) => <Table.Tr key={n}><Table.Td>{i.name}</Table.Td><Table.Td ta="right">{i.quantity}</Table.Td><Table.Td ta="right">{money(i.unitPrice)}</Table.Td></Table.Tr>)}</Table.Tbody>
              </Table>
            ) : null}
            <Table variant="vertical" layout="fixed" withRowBorders={false}>
              <Table.Tbody>
                {rows.map(([k, v]) => <Table.Tr key={k}><Table.Th w={150}>{k}</Table.Th><Table.Td style={{ wordBreak: 'break-all' }}>{v}</Table.Td></Table.Tr>)}
              </Table.Tbody>
            </Table>
          </Stack>
        </Paper>
        {/* What window.print() puts on paper (web/src/print.css): the store, the link's name, its QR and its address. */}
        <Paper withBorder p="md" data-print>
          <Stack align="center" gap="xs">
            <Title order={2} size="h4">{t.links.qr}</Title>
            <Text size="sm" c="dimmed" ta="center" data-print-hide>{t.links.qrHint}</Text>
            <Text fw={700} className="print-only">{brand.data?.displayName ?? ''}</Text>
            <Text fw={600} className="print-only">{l.name}</Text>
            {qr.data ? <Image src={qr.data.imageBase64} alt={`${t.links.qr}: ${l.url}`} w={220} h={220} fit="contain" data-testid="link-qr" style={{ imageRendering: 'pixelated' }} /> : <Loading error={qr.error} />}
            <Text size="sm" ta="center" style={{ wordBreak: 'break-all' }}>{l.url}</Text>
            <Button variant="light" onClick={() => window.print()} data-print-hide>{t.links.printQr}</Button>
          </Stack>
        </Paper>
      </SimpleGrid>
      <Paper withBorder p="md">
        <Title order={2} size="h4" mb="sm">{t.links.checkouts}</Title>
        {!checkouts.items ? <Loading error={checkouts.error} /> : checkouts.items.length === 0 ? <Empty /> : <CheckoutTable rows={checkouts.items} />}
        {checkouts.pager}
      </Paper>
      <Group />
    </Stack>
  );
}
