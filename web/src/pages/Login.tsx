import { useState } from 'react';
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useLocation, useSearch } from 'wouter';
import { api, type LoginAnswer } from '../api';
import { ErrorAlert, useSubmit } from '../components';
import { useT } from '../i18n';
import { useSession } from '../session';
import { LanguageSelect } from '../App';

/** Only a path of this app: never another origin (`//host`) after logging in. */
const safeNext = (next: string | null) => (next && /^\/(?!\/)/.test(next) && !next.startsWith('/login') ? next : '/');

export function Login() {
  const t = useT();
  const params = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const { loggedIn } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [totp, setTotp] = useState('');
  const [needTotp, setNeedTotp] = useState(false);
  const s = useSubmit();

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    await s.run(async () => {
      try {
        const answer = await api.post<LoginAnswer>('/auth/login', { email, password, ...(needTotp ? { totp } : {}) });
        loggedIn(answer);
        navigate(safeNext(params.get('next')));
      } catch (err) {
        // The second step: the account has TOTP on; keep e-mail and password, ask for the code.
        if (err instanceof Error && /^totp: required/.test(err.message) && !needTotp) {
          setNeedTotp(true);
          return;
        }
        throw err;
      }
    });
  };

  return (
    <Center mih="100vh" p="md" bg="gray.0">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={420} component="main">
        <form onSubmit={submit} noValidate>
          <Stack>
            <Text fw={700} c="teal.8" size="lg">Pixgate</Text>
            <Title order={1} size="h3">{t.login.title}</Title>
            {params.get('expired') ? <Alert color="yellow" role="status">{t.login.expired}</Alert> : null}
            <TextInput label={t.login.email} type="email" autoComplete="username" required value={email}
              onChange={(e) => setEmail(e.currentTarget.value)} error={s.fieldError('email')} />
            <PasswordInput label={t.login.password} autoComplete="current-password" required value={password}
              onChange={(e) => setPassword(e.currentTarget.value)} error={s.fieldError('password')} />
            {needTotp ? (
              <TextInput label={t.login.totp} description={t.login.totpHint} inputMode="numeric" autoComplete="one-time-code"
                autoFocus maxLength={6} value={totp} onChange={(e) => setTotp(e.currentTarget.value.replace(/\D/g, ''))}
                error={s.fieldError('totp')} />
            ) : null}
            <ErrorAlert message={s.otherError(['email', 'password', ...(needTotp ? ['totp'] : [])])} />
            <Button type="submit" loading={s.busy}>{t.login.submit}</Button>
            <Text size="xs" c="dimmed">{t.login.demoHint}</Text>
            <LanguageSelect />
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
