import { useState } from 'react';
import { Alert, Badge, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useLocation } from 'wouter';
import { api, type Delivery, type WebhookEndpoint } from '../api';
import { ConfirmButton, Empty, ErrorAlert, Loading, PageHeader, ShownOnce, useLoad, usePaged, useSubmit } from '../components';
import { ResponsiveTable } from '../table';
import { when } from '../format';
import { useLang } from '../i18n';
import { useSession } from '../session';

/** The operations on one endpoint (docs/contract/webhooks.md#webhook-operations); each answer is shown, the rotated secret once. */
function Operations({ id, onChange }: { id: string; onChange: () => void }) {
  const { t } = useLang();
  const [note, setNote] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [since, setSince] = useState('');
  const s = useSubmit();
  const base = `/webhooks/${encodeURIComponent(id)}`;
  return (
    <Paper withBorder p="md">
      <Stack>
        <Group>
          <ConfirmButton label={t.webhooks.test} question={t.webhooks.test} color="teal" onConfirm={async () => {
            const d = await api.post<Delivery>(`${base}/test`);
            setNote(`${t.webhooks.test}: ${d.success ? t.webhooks.ok : t.webhooks.failed} (${d.statusCode ?? '—'})`);
            onChange();
          }} />
          <ConfirmButton label={t.webhooks.rotate} question={t.webhooks.rotateConfirm} color="orange" onConfirm={async () => {
            const r = await api.post<{ secret: string }>(`${base}/rotate-secret`, {});
            setSecret(r.secret);
          }} />
        </Group>
        <form onSubmit={async (e) => {
          e.preventDefault();
          const r = await s.run(() => api.post<{ queued: number }>(`${base}/recover`, { since: new Date(since).toISOString() }));
          if (r) { setNote(`${t.webhooks.queued}: ${r.queued}`); onChange(); }
        }}>
          <Group align="flex-end">
            <TextInput type="datetime-local" label={t.webhooks.recoverSince} value={since} onChange={(e) => setSince(e.currentTarget.value)} error={s.fieldError('since')} />
            <Button type="submit" variant="light" loading={s.busy} disabled={!since}>{t.webhooks.recover}</Button>
          </Group>
        </form>
        <ErrorAlert message={s.otherError(['since'])} />
        {note ? <Alert color="blue" role="status">{note}</Alert> : null}
        {secret ? <ShownOnce label={t.webhooks.newSecret} value={secret} testId="rotated-secret" /> : null}
      </Stack>
    </Paper>
  );
}

export function WebhookDetail({ id }: { id: string }) {
  const { t, lang } = useLang();
  const { can } = useSession();
  const [, navigate] = useLocation();
  const ep = useLoad(() => api.get<WebhookEndpoint>(`/webhooks/${encodeURIComponent(id)}`), [id]);
  const list = usePaged<Delivery>((c) => `/webhooks/${encodeURIComponent(id)}/deliveries?limit=20${c ? `&${c}` : ''}`, [id]);
  if (!ep.data) return <Loading error={ep.error} />;
  return (
    <Stack>
      <PageHeader title={t.webhooks.endpoint}>
        <Button variant="default" onClick={list.reload}>{t.common.refresh}</Button>
        {can('developer') ? (
          <ConfirmButton label={t.webhooks.remove} question={t.webhooks.removeConfirm}
            onConfirm={async () => { await api.del(`/webhooks/${encodeURIComponent(id)}`); navigate('/webhooks'); }} />
        ) : null}
      </PageHeader>
      <Text style={{ wordBreak: 'break-all' }} fw={600}>{ep.data.url}</Text>
      <Text size="sm" c="dimmed">{ep.data.events.join(', ')}</Text>
      {can('developer') ? <Operations id={id} onChange={list.reload} /> : null}
      <Title order={2} size="h4">{t.webhooks.deliveries}</Title>
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <Empty /> : (
        <ResponsiveTable rows={list.items} rowKey={(d) => d.id} testId="deliveries-table" columns={[
          { label: t.webhooks.event, render: (d) => <><Text size="sm" fw={600}>{d.event}</Text><Text size="xs" c="dimmed" ff="monospace">{d.eventId}</Text></> },
          { label: t.common.created, render: (d) => when(d.createdAt, lang) },
          { label: t.webhooks.attempt, render: (d) => <>{d.attempt}{d.manual ? <Badge ml={4} size="xs" variant="outline">{t.webhooks.manual}</Badge> : null}</> },
          { label: t.common.status, render: (d) => <>
            <Badge color={d.success ? 'green' : 'red'} variant="light">{d.success ? t.webhooks.ok : t.webhooks.failed} {d.statusCode ?? ''}</Badge>
            {d.error ? <Text size="xs" c="red">{d.error}</Text> : null}
          </> },
          { label: t.webhooks.duration, render: (d) => `${d.durationMs} ms` },
          ...(can('developer') ? [{ label: t.common.actions, render: (d: Delivery) => <ConfirmButton size="xs" color="teal" label={t.webhooks.redeliver} question={`${t.webhooks.redeliver} ${d.eventId}?`}
            onConfirm={async () => { await api.post(`/webhooks/${encodeURIComponent(id)}/redeliver`, { eventId: d.eventId }); list.reload(); }} /> }] : []),
        ]} />
      )}
      {list.pager}
    </Stack>
  );
}
