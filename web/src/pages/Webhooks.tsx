import { useState } from 'react';
import { Button, Checkbox, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { Link } from 'wouter';
import { api, EVENT_TYPES, type CreatedEndpoint, type WebhookEndpoint } from '../api';
import { Empty, ErrorAlert, Loading, PageHeader, ShownOnce, usePaged, useSubmit } from '../components';
import { ResponsiveTable } from '../table';
import { when } from '../format';
import { useLang } from '../i18n';
import { useSession } from '../session';

function NewEndpoint({ onCreated }: { onCreated: () => void }) {
  const { t } = useLang();
  const [open, setOpen] = useState(false);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['CHARGE_PAID']);
  const [created, setCreated] = useState<CreatedEndpoint | null>(null);
  const s = useSubmit();
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const ep = await s.run(() => api.post<CreatedEndpoint>('/webhooks', { url: url.trim(), events }));
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
        <ResponsiveTable rows={list.items} rowKey={(w) => w.id} testId="webhooks-table" columns={[
          { label: 'URL', render: (w) => <Text size="sm" style={{ wordBreak: 'break-all' }}>{w.url}</Text> },
          { label: t.webhooks.events, render: (w) => <Text size="xs">{w.events.join(', ')}</Text> },
          { label: t.common.created, render: (w) => when(w.createdAt, lang) },
          { label: t.common.details, render: (w) => <Button component={Link} href={`/webhooks/${w.id}`} size="xs" variant="light">{t.webhooks.deliveries}</Button> },
        ]} />
      )}
      {list.pager}
    </Stack>
  );
}
