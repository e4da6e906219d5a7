import { useState } from 'react';
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { Link } from 'wouter';
import { api, ApiError } from '../api';
import { ErrorAlert, useSubmit } from '../components';
import { useT } from '../i18n';
import { LanguageSelect } from '../App';

export function Invite({ token }: { token: string }) {
  const t = useT();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [done, setDone] = useState(false);
  const s = useSubmit();

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    await s.run(async () => {
      if (password !== confirm) throw new ApiError(400, 'VALIDATION_ERROR', `confirm: ${t.invite.mismatch}`);
      await api.post(`/auth/invitations/${encodeURIComponent(token)}/accept`, { password, ...(name.trim() ? { name: name.trim() } : {}) });
      setDone(true);
    });
  };

  return (
    <Center mih="100vh" p="md" bg="gray.0">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={420} component="main">
        <Stack>
          <Text fw={700} c="teal.8" size="lg">Pixgate</Text>
          <Title order={1} size="h3">{t.invite.title}</Title>
          {done ? (
            <>
              <Alert color="green" role="status">{t.invite.done}</Alert>
              <Button component={Link} href="/login">{t.invite.goLogin}</Button>
            </>
          ) : (
            <form onSubmit={submit} noValidate>
              <Stack>
                <Text size="sm">{t.invite.intro}</Text>
                <TextInput label={t.invite.name} autoComplete="name" value={name} onChange={(e) => setName(e.currentTarget.value)} error={s.fieldError('name')} />
                <PasswordInput label={t.invite.password} autoComplete="new-password" required value={password}
                  onChange={(e) => setPassword(e.currentTarget.value)} error={s.fieldError('password')} />
                <PasswordInput label={t.invite.confirm} autoComplete="new-password" required value={confirm}
                  onChange={(e) => setConfirm(e.currentTarget.value)} error={s.fieldError('confirm')} />
                <ErrorAlert message={s.otherError(['name', 'password', 'confirm'])} />
                <Button type="submit" loading={s.busy}>{t.invite.submit}</Button>
              </Stack>
            </form>
          )}
          <LanguageSelect />
        </Stack>
      </Paper>
    </Center>
  );
}
