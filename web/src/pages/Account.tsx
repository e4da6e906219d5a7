import { useState } from 'react';
import { Alert, Badge, Button, Group, Image, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { api } from '../api';
import { pngSrc } from '../format';
import { CopyField, ErrorAlert, PageHeader, useSubmit } from '../components';
import { useT } from '../i18n';
import { useSession } from '../session';

function Password() {
  const t = useT();
  const [f, setF] = useState({ currentPassword: '', newPassword: '' });
  const [saved, setSaved] = useState(false);
  const s = useSubmit();
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setSaved(false);
    if (await s.run(() => api.post('/me/password', f).then(() => true))) { setSaved(true); setF({ currentPassword: '', newPassword: '' }); }
  };
  return (
    <Paper withBorder p="md">
      <form onSubmit={submit} noValidate>
        <Stack>
          <Title order={2} size="h4">{t.account.password}</Title>
          <PasswordInput label={t.account.current} autoComplete="current-password" value={f.currentPassword}
            onChange={(e) => setF({ ...f, currentPassword: e.currentTarget.value })} error={s.fieldError('currentPassword')} />
          <PasswordInput label={t.account.newPassword} autoComplete="new-password" value={f.newPassword}
            onChange={(e) => setF({ ...f, newPassword: e.currentTarget.value })} error={s.fieldError('newPassword')} />
          <ErrorAlert message={s.otherError(['currentPassword', 'newPassword'])} />
          {saved ? <Alert color="green" role="status">{t.account.passwordSaved}</Alert> : null}
          <Button type="submit" loading={s.busy} style={{ alignSelf: 'flex-start' }}>{t.account.savePassword}</Button>
        </Stack>
      </form>
    </Paper>
  );
}

function Totp() {
  const t = useT();
  const { session, updateUser } = useSession();
  const on = !!session?.user.totpEnabled;
  const [enrol, setEnrol] = useState<{ secret: string; otpauthUrl: string; qrImageBase64: string } | null>(null);
  const [code, setCode] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const s = useSubmit();
  const start = async () => {
    setNote(null);
    const r = await s.run(() => api.post<{ secret: string; otpauthUrl: string; qrImageBase64: string }>('/me/totp'));
    if (r) setEnrol(r);
  };
  const confirm = async (e: React.FormEvent) => {
    e.preventDefault();
    if (await s.run(() => api.post('/me/totp/confirm', { code }).then(() => true))) {
      updateUser({ totpEnabled: true }); setEnrol(null); setCode(''); setNote(t.account.totpEnabled);
    }
  };
  const disable = async (e: React.FormEvent) => {
    e.preventDefault();
    if (await s.run(() => api.del('/me/totp', { code }).then(() => true))) {
      updateUser({ totpEnabled: false }); setCode(''); setNote(t.account.totpDisabled);
    }
  };
  const codeInput = <TextInput label={t.account.code} inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code}
    onChange={(e) => setCode(e.currentTarget.value.replace(/\D/g, ''))} error={s.fieldError('code')} />;
  return (
    <Paper withBorder p="md">
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h4">{t.account.totp}</Title>
          <Badge color={on ? 'green' : 'gray'} data-testid="totp-state">{on ? t.account.totpOn : t.account.totpOff}</Badge>
        </Group>
        {note ? <Alert color="green" role="status">{note}</Alert> : null}
        {on ? (
          <form onSubmit={disable} noValidate>
            <Stack>{codeInput}<ErrorAlert message={s.otherError(['code'])} />
              <Button type="submit" color="red" variant="light" loading={s.busy} style={{ alignSelf: 'flex-start' }}>{t.account.disable}</Button></Stack>
          </form>
        ) : enrol ? (
          <form onSubmit={confirm} noValidate>
            <Stack>
              <Text size="sm">{t.account.scan}</Text>
              <Image src={pngSrc(enrol.qrImageBase64)} alt="QR Code TOTP" w={200} h={200} fit="contain" style={{ imageRendering: 'pixelated' }} />
              <CopyField label={t.account.secret} value={enrol.secret} testId="totp-secret" />
              {codeInput}
              <ErrorAlert message={s.otherError(['code'])} />
              <Button type="submit" loading={s.busy} style={{ alignSelf: 'flex-start' }}>{t.account.confirmTotp}</Button>
            </Stack>
          </form>
        ) : (
          <>
            <ErrorAlert message={s.message} />
            <Button onClick={start} loading={s.busy} style={{ alignSelf: 'flex-start' }}>{t.account.enroll}</Button>
          </>
        )}
      </Stack>
    </Paper>
  );
}

export function Account() {
  const t = useT();
  const { session } = useSession();
  return (
    <Stack maw={640}>
      <PageHeader title={t.account.title} />
      <Text>{session?.user.name} · {session?.user.email}</Text>
      <Password />
      <Totp />
    </Stack>
  );
}
