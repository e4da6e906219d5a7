import { useState } from 'react';
import { Button, Group, Modal, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { api, type Role, type User } from '../api';
import { ConfirmButton, CopyField, Empty, ErrorAlert, Loading, PageHeader, usePaged, useSubmit } from '../components';
import { ResponsiveTable } from '../table';
import { when } from '../format';
import { useLang } from '../i18n';
import { useSession } from '../session';

const ROLES: Role[] = ['OWNER', 'DEVELOPER', 'FINANCE', 'VIEWER'];

function InviteUser({ onDone }: { onDone: () => void }) {
  const { t } = useLang();
  const [open, setOpen] = useState(false);
  const [f, setF] = useState({ email: '', name: '', role: 'VIEWER' });
  const [link, setLink] = useState<string | null>(null);
  const s = useSubmit();
  const roleOptions = ROLES.map((r) => ({ value: r, label: t.team.roles[r] ?? r }));
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const r = await s.run(() => api.post<{ user: User; invitation: { url: string } }>('/me/users', { email: f.email.trim(), name: f.name.trim(), role: f.role }));
    if (r) { setLink(r.invitation.url); onDone(); }
  };
  const close = () => { setOpen(false); setLink(null); setF({ email: '', name: '', role: 'VIEWER' }); };
  return (
    <>
      <Button onClick={() => setOpen(true)}>{t.team.invite}</Button>
      <Modal opened={open} onClose={close} title={t.team.invite} centered>
        {link ? (
          <Stack>
            <CopyField label={t.team.link} value={link} testId="invitation-url" />
            <Button onClick={close}>{t.common.close}</Button>
          </Stack>
        ) : (
          <form onSubmit={submit} noValidate>
            <Stack>
              <TextInput label={t.team.email} type="email" required value={f.email} onChange={(e) => setF({ ...f, email: e.currentTarget.value })} error={s.fieldError('email')} />
              <TextInput label={t.team.name} required value={f.name} onChange={(e) => setF({ ...f, name: e.currentTarget.value })} error={s.fieldError('name')} />
              <NativeSelect label={t.team.role} value={f.role} onChange={(e) => setF({ ...f, role: e.currentTarget.value })} data={roleOptions} error={s.fieldError('role')} />
              <ErrorAlert message={s.otherError(['email', 'name', 'role'])} />
              <Button type="submit" loading={s.busy}>{t.team.submit}</Button>
            </Stack>
          </form>
        )}
      </Modal>
    </>
  );
}

function RoleSelect({ user, onDone }: { user: User; onDone: () => void }) {
  const { t } = useLang();
  const s = useSubmit();
  return (
    <Stack gap={2}>
      <NativeSelect aria-label={`${t.team.changeRole}: ${user.email}`} size="xs" value={user.role} disabled={s.busy}
        data={ROLES.map((r) => ({ value: r, label: t.team.roles[r] ?? r }))}
        onChange={async (e) => { const role = e.currentTarget.value; if (await s.run(() => api.patch(`/me/users/${encodeURIComponent(user.id)}`, { role }))) onDone(); }} />
      {s.message ? <Text size="xs" c="red" role="alert">{s.message}</Text> : null}
    </Stack>
  );
}

export function Team() {
  const { t, lang } = useLang();
  const { can, session } = useSession();
  const list = usePaged<User>((c) => `/me/users?limit=50${c ? `&${c}` : ''}`, []);
  const owner = can('team');
  return (
    <Stack>
      <PageHeader title={t.team.title}>{owner ? <InviteUser onDone={list.reload} /> : null}</PageHeader>
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <Empty /> : (
        <ResponsiveTable rows={list.items} rowKey={(u) => u.id} testId="team-table" columns={[
          { label: t.team.name, render: (u) => <>{u.name}{u.id === session?.user.id ? <Text span size="xs" c="dimmed"> ({t.team.you})</Text> : null}</> },
          { label: t.team.email, render: (u) => u.email },
          { label: t.team.role, render: (u) => (owner && u.id !== session?.user.id ? <RoleSelect user={u} onDone={list.reload} /> : (t.team.roles[u.role] ?? u.role)) },
          { label: t.team.lastLogin, render: (u) => when(u.lastLoginAt, lang) },
          ...(owner ? [{ label: t.common.actions, render: (u: User) => (u.id !== session?.user.id ? <ConfirmButton size="xs" label={t.team.remove} question={`${t.team.removeConfirm} (${u.email})`}
            onConfirm={async () => { await api.del(`/me/users/${encodeURIComponent(u.id)}`); list.reload(); }} /> : null) }] : []),
        ]} />
      )}
      {list.pager}
      <Group />
    </Stack>
  );
}
