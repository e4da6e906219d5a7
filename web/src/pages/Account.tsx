import { useState } from 'react';
import { Alert, Badge, Button, ColorInput, FileInput, Group, Image, Paper, PasswordInput, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { api, ApiError, type Branding, type BrandingPut } from '../api';
import { pngSrc } from '../format';
import { CopyField, ErrorAlert, Loading, PageHeader, useLoad, useSubmit } from '../components';
import { useT } from '../i18n';
import { PagePreview } from '../preview';
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

interface BrandForm { displayName: string; primaryColor: string; logo: string | null | undefined }
const formOf = (b: Branding): BrandForm => ({ displayName: b.displayName ?? '', primaryColor: b.primaryColor ?? '', logo: undefined });

/** Only what the merchant changed: a field left out keeps its value (an empty one clears it: the store name, the default colour). */
function changes(f: BrandForm, saved: Branding): BrandingPut {
  const body: BrandingPut = {};
  if (f.displayName !== (saved.displayName ?? '')) body.displayName = f.displayName.trim() || null;
  if (f.primaryColor !== (saved.primaryColor ?? '')) body.primaryColor = f.primaryColor.trim() || null;
  if (f.logo !== undefined) body.logo = f.logo;
  return body;
}

const readDataUrl = (file: File) => new Promise<string>((resolve, reject) => {
  const reader = new FileReader();
  reader.onload = () => resolve(String(reader.result));
  reader.onerror = () => reject(reader.error);
  reader.readAsDataURL(file);
});

/** The look of the public pages (docs/contract/checkouts.md#branding), with the page itself as the preview. */
function BrandingCard() {
  const t = useT();
  const { can } = useSession();
  const editable = can('developer');
  const loaded = useLoad(() => api.get<Branding>('/me/branding'), []);
  const [f, setF] = useState<BrandForm | null>(null);
  const [saved, setSaved] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const s = useSubmit();
  if (!loaded.data) return <Paper withBorder p="md"><Loading error={loaded.error} /></Paper>;
  const b = loaded.data;
  const form = f ?? formOf(b);
  const set = (patch: Partial<BrandForm>) => { setSaved(false); setF({ ...form, ...patch }); };
  const pick = async (chosen: File | null) => {
    setFile(chosen);
    if (!chosen) return set({ logo: undefined });
    await s.run(async () => set({ logo: await readDataUrl(chosen).catch(() => { throw new ApiError(400, 'VALIDATION_ERROR', t.branding.readFailed); }) }));
  };
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    const next = await s.run(() => api.put<Branding>('/me/branding', changes(form, b)));
    if (next) { loaded.setData(next); setF(null); setFile(null); setSaved(true); }
  };
  // The logo as the pages load it: a path on this origin (PUBLIC_URL may name another host).
  const current = b.logoUrl ? new URL(b.logoUrl).pathname : null;
  const shown = form.logo === undefined ? current : form.logo;
  return (
    <Paper withBorder p="md">
      <Stack>
        <Title order={2} size="h4">{t.branding.title}</Title>
        <Text size="sm" c="dimmed">{t.branding.intro}</Text>
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
          {editable ? (
            <form onSubmit={save} noValidate>
              <Stack>
                <TextInput label={t.branding.displayName} maxLength={60} value={form.displayName} onChange={(e) => set({ displayName: e.currentTarget.value })} error={s.fieldError('displayName')} />
                <ColorInput label={t.branding.color} format="hex" placeholder="#0b6e4f" value={form.primaryColor} onChange={(v) => set({ primaryColor: v })} error={s.fieldError('primaryColor')} />
                <FileInput label={t.branding.logo} accept="image/png,image/jpeg" value={file} onChange={(chosen) => void pick(chosen)} clearable error={s.fieldError('logo')} />
                <Group gap="sm" align="center">
                  {shown ? <Image src={shown} alt={form.logo ? t.branding.newLogo : t.branding.currentLogo} h={48} w="auto" fit="contain" data-testid="branding-logo" /> : <Text size="sm" c="dimmed">{t.branding.noLogo}</Text>}
                  {shown ? <Button variant="subtle" color="red" size="xs" onClick={() => { setFile(null); set({ logo: current ? null : undefined }); }}>{t.branding.removeLogo}</Button> : null}
                  {form.logo === null ? <Button variant="subtle" size="xs" onClick={() => set({ logo: undefined })}>{t.branding.keepLogo}</Button> : null}
                </Group>
                <ErrorAlert message={s.otherError(['displayName', 'primaryColor', 'logo'])} />
                {saved ? <Alert color="green" role="status">{t.branding.saved}</Alert> : null}
                <Button type="submit" loading={s.busy} style={{ alignSelf: 'flex-start' }}>{t.branding.save}</Button>
              </Stack>
            </form>
          ) : (
            <Stack gap="xs">
              <Text size="sm"><b>{t.branding.displayName}:</b> {b.displayName ?? '—'}</Text>
              <Text size="sm"><b>{t.branding.color}:</b> {b.primaryColor ?? '—'}</Text>
              {current ? <Image src={current} alt={t.branding.currentLogo} h={48} w="auto" fit="contain" /> : <Text size="sm" c="dimmed">{t.branding.noLogo}</Text>}
              <Text size="sm" c="dimmed">{t.branding.readOnly}</Text>
            </Stack>
          )}
          {editable ? (
            <Stack gap="xs">
              <Title order={3} size="h5">{t.branding.preview}</Title>
              <PagePreview path="/me/branding/preview" body={changes(form, b)} title={t.branding.preview} testId="branding-preview" />
            </Stack>
          ) : null}
        </SimpleGrid>
      </Stack>
    </Paper>
  );
}

export function Account() {
  const t = useT();
  const { session } = useSession();
  return (
    <Stack>
      <Stack maw={640}>
        <PageHeader title={t.account.title} />
        <Text>{session?.user.name} · {session?.user.email}</Text>
        <Password />
        <Totp />
      </Stack>
      <BrandingCard />
    </Stack>
  );
}
