import { useState } from 'react';
import { Badge, Button, Group, NativeSelect, Paper, Stack, Text, TextInput } from '@mantine/core';
import { api, type ApiKey, type IssuedApiKey, type KeyRole, type User } from '../api';
import { ConfirmButton, Empty, ErrorAlert, Loading, PageHeader, ShownOnce, useLoad, usePaged, useSubmit } from '../components';
import { ResponsiveTable } from '../table';
import { when } from '../format';
import { useLang } from '../i18n';
import { useSession } from '../session';

export function ApiKeys() {
  const { t, lang } = useLang();
  const { can, keyRoles } = useSession();
  const roles = keyRoles();
  const [name, setName] = useState('');
  const [role, setRole] = useState<KeyRole | undefined>(roles[0]);
  const [created, setCreated] = useState<IssuedApiKey | null>(null);
  const s = useSubmit();
  const list = usePaged<ApiKey>((c) => `/me/api-keys?limit=20${c ? `&${c}` : ''}`, []);
  // Who made each key: the team's names (a key outlives its maker, who may since be gone).
  const team = useLoad(() => api.page<User>('/me/users?limit=100'), []);
  const maker = (id: string | null) => {
    if (id === null) return t.apiKeys.operator;
    const user = team.data?.data.find((u) => u.id === id);
    if (user) return user.name;
    return team.data && !team.data.pagination.next ? `${t.apiKeys.removedUser} (${id})` : id;
  };
  const create = async (e: React.FormEvent) => {
    e.preventDefault();
    const k = await s.run(() => api.post<IssuedApiKey>('/me/api-keys', { name: name.trim(), role }));
    if (k) { setCreated(k); setName(''); list.reload(); }
  };
  return (
    <Stack>
      <PageHeader title={t.apiKeys.title} />
      {can('developer') ? (
        <Paper withBorder p="md">
          <form onSubmit={create} noValidate>
            <Group align="flex-end">
              <TextInput label={t.apiKeys.name} placeholder="Loja virtual" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={s.fieldError('name')} />
              <NativeSelect label={t.apiKeys.role} value={role} onChange={(e) => setRole(e.currentTarget.value as KeyRole)}
                data={roles.map((r) => ({ value: r, label: t.apiKeys.roles[r] ?? r }))} error={s.fieldError('role')} />
              <Button type="submit" loading={s.busy}>{t.apiKeys.submit}</Button>
            </Group>
            <ErrorAlert message={s.otherError(['name', 'role'])} />
          </form>
          {created?.key ? <Stack mt="md"><ShownOnce label={t.apiKeys.key} value={created.key} testId="api-key-secret" /></Stack> : null}
        </Paper>
      ) : null}
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <Empty /> : (
        <ResponsiveTable rows={list.items} rowKey={(k) => k.id} testId="api-keys-table" columns={[
          { label: t.apiKeys.name, render: (k) => k.name },
          { label: t.apiKeys.last4, render: (k) => <Text ff="monospace" size="sm">…{k.last4}</Text> },
          { label: t.apiKeys.role, render: (k) => t.apiKeys.roles[k.role] ?? k.role },
          { label: t.apiKeys.createdBy, render: (k) => maker(k.createdBy) },
          { label: t.common.created, render: (k) => when(k.createdAt, lang) },
          { label: t.apiKeys.lastUsed, render: (k) => when(k.lastUsedAt, lang) },
          { label: t.common.status, render: (k) => (k.revokedAt ? <Badge color="gray" variant="light">{t.apiKeys.revoked} {when(k.revokedAt, lang)}</Badge> : <Badge color="green" variant="light">{t.apiKeys.active}</Badge>) },
          ...(can('developer') ? [{ label: t.common.actions, render: (k: ApiKey) => (k.revokedAt ? null : <ConfirmButton size="xs" label={t.apiKeys.revoke} question={t.apiKeys.revokeConfirm}
            onConfirm={async () => { await api.del(`/me/api-keys/${encodeURIComponent(k.id)}`); list.reload(); }} />) }] : []),
        ]} />
      )}
      {list.pager}
    </Stack>
  );
}
