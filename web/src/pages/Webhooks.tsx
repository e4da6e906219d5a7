import { useState } from 'react';
import { Button, Checkbox, Group, Modal, Stack, Table, Text, TextInput } from '@mantine/core';
import { Link } from 'wouter';
import { api, type WebhookEndpoint } from '../api';
import { Empty, ErrorAlert, Loading, PageHeader, ShownOnce, usePaged, useSubmit } from '../components';
import { when } from '../format';
import { useLang } from '../i18n';
import { useSession } from '../session';

export const EVENT_TYPES = [
  'CHARGE_CREATED', 'CHARGE_PAID', 'CHARGE_EXPIRED', 'REFUND_COMPLETED', 'REFUND_FAILED',
  'WITHDRAWAL_COMPLETED', 'WITHDRAWAL_FAILED', 'CHECKOUT_PAID', 'CHECKOUT_REFUNDED', 'SPLIT_RECEIVED',
];

function NewEndpoint({ onCreated }: { onCreated: () => void }) {
  const { t } = useLang();
  const [open, setOpen] = useState(false);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['CHARGE_PAID']);
  const [created, setCreated] = useState<WebhookEndpoint | null>(null);
  const s = useSubmit();
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const ep = await s.run(() => api.post<WebhookEndpoint>('/webhooks', { url: url.trim(), events }));
    if (ep) {
      setCreated(ep);
      onCreated();
    }
  };
  const close = () => { setOpen(false); setCreated(null); setUrl(''); };
  return (
    <>
      <Button onClick={() => setOpen(true)}>{t.webhooks.new}</Button>
      <Modal opened={open} onClose={close} title={t.webhooks.new} centered size="lg">
        {created ? (
          <Stack>
            <Text size="sm" style={{ wordBreak: 'break-all' }}>{created.url}</Text>
            <ShownOnce label={t.webhooks.secret} value={created.secret!} testId="webhook-secret" />
            <Button onClick={close}>{t.common.close}</Button>
          </Stack>
        ) : (
          <form onSubmit={submit} noValidate>
            <Stack>
              <TextInput label={t.webhooks.url} type="url" required placeholder="https://minhaloja.com.br/pix/webhooks" value={url}
                onChange={(e) => setUrl(e.currentTarget.value)} error={s.fieldError('url')} />
              <Checkbox.Group label={t.webhooks.events} value={events} onChange={setEvents} error={s.fieldError('events')}>
                <Group mt="xs" gap="sm">
                  {EVENT_TYPES.map((ev) => <Checkbox key={ev} value={ev} label={ev} />)}
                </Group>
              </Checkbox.Group>
              <ErrorAlert message={s.otherError(['url', 'events'])} />
              <Button type="submit" loading={s.busy}>{t.webhooks.submit}</Button>
            </Stack>
          </form>
        )}
      </Modal>
    </>
  );
}

export function Webhooks() {
  const { t, lang } = useLang();
  const { can } = useSession();
  const list = usePaged<WebhookEndpoint>((c) => `/webhooks?limit=20${c ? `&${c}` : ''}`, []);
  return (
    <Stack>
      <PageHeader title={t.webhooks.title}>{can('developer') ? <NewEndpoint onCreated={list.reload} /> : null}</PageHeader>
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <Empty /> : (
        <Table.ScrollContainer minWidth={600}>
          <Table striped verticalSpacing="sm" data-testid="webhooks-table">
            <Table.Thead>
              <Table.Tr><Table.Th>URL</Table.Th><Table.Th>{t.webhooks.events}</Table.Th><Table.Th>{t.common.created}</Table.Th><Table.Th>{t.common.details}</Table.Th></Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.items.map((w) => (
                <Table.Tr key={w.id}>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{w.url}</Table.Td>
                  <Table.Td><Text size="xs">{w.events.join(', ')}</Text></Table.Td>
                  <Table.Td>{when(w.createdAt, lang)}</Table.Td>
                  <Table.Td><Button component={Link} href={`/webhooks/${w.id}`} size="xs" variant="light">{t.webhooks.deliveries}</Button></Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {list.pager}
    </Stack>
  );
}
