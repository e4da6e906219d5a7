import { useState } from 'react';
import { Accordion, Badge, Button, Code, Group, NativeSelect, Paper, Stack, Text } from '@mantine/core';
import { LISTED_EVENT_TYPES, query, type EventItem } from '../api';
import { Empty, Loading, PageHeader, usePaged } from '../components';
import { when } from '../format';
import { useLang } from '../i18n';

/** docs/contract/webhooks.md#events-api: every event of the merchant, its delivery counts and the signed payload. */
export function Events() {
  const { t, lang } = useLang();
  const [form, setForm] = useState({ type: '', deliveryStatus: '' });
  const [filters, setFilters] = useState(form);
  const list = usePaged<EventItem>((c) => `/events${query({ ...filters, limit: 20 })}${c ? `${query(filters) ? '&' : '?'}${c}` : ''}`, [filters]);
  return (
    <Stack>
      <PageHeader title={t.events.title} />
      <Paper withBorder p="md">
        <form onSubmit={(e) => { e.preventDefault(); setFilters(form); }}>
          <Group align="flex-end">
            <NativeSelect label={t.events.type} value={form.type} onChange={(e) => setForm({ ...form, type: e.currentTarget.value })}
              data={[{ value: '', label: t.common.all }, ...LISTED_EVENT_TYPES.map((v) => ({ value: v, label: v }))]} />
            <NativeSelect label={t.events.delivery} value={form.deliveryStatus} onChange={(e) => setForm({ ...form, deliveryStatus: e.currentTarget.value })}
              data={[{ value: '', label: t.common.all }, ...['PENDING', 'SUCCEEDED', 'FAILED'].map((v) => ({ value: v, label: t.status[v] ?? v }))]} />
            <Button type="submit" variant="light">{t.common.filter}</Button>
          </Group>
        </form>
      </Paper>
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <Empty /> : (
        <Accordion variant="separated">
          {list.items.map((ev) => (
            <Accordion.Item key={ev.id} value={ev.id}>
              <Accordion.Control>
                <Group gap="xs" wrap="wrap">
                  <Text fw={600} size="sm">{ev.type}</Text>
                  <Text size="xs" c="dimmed">{when(ev.createdAt, lang)}</Text>
                  {ev.deliveries.succeeded + ev.deliveries.pending + ev.deliveries.failed === 0 ? <Badge color="gray" variant="light">{t.events.none}</Badge> : null}
                  {ev.deliveries.succeeded ? <Badge color="green" variant="light">{ev.deliveries.succeeded} {t.events.succeeded}</Badge> : null}
                  {ev.deliveries.pending ? <Badge color="yellow" variant="light">{ev.deliveries.pending} {t.events.pending}</Badge> : null}
                  {ev.deliveries.failed ? <Badge color="red" variant="light">{ev.deliveries.failed} {t.events.failed}</Badge> : null}
                </Group>
              </Accordion.Control>
              <Accordion.Panel>
                <Text size="xs" ff="monospace" mb="xs">{ev.id}</Text>
                <Text size="sm" fw={500}>{t.events.payload}</Text>
                <Code block>{JSON.stringify(ev.data, null, 2)}</Code>
              </Accordion.Panel>
            </Accordion.Item>
          ))}
        </Accordion>
      )}
      {list.pager}
    </Stack>
  );
}
