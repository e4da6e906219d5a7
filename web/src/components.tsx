import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { Alert, Badge, Button, Code, CopyButton, Group, Loader, Modal, Stack, Table, Text, Title } from '@mantine/core';
import { ApiError, api, type Page } from './api';
import { money } from './format';
import { useT, type Dict } from './i18n';

/** Page title and the page's main action on one line. */
export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Group justify="space-between" mb="md" wrap="wrap" gap="sm">
      <Title order={1} size="h2">{title}</Title>
      {children ? <Group gap="sm">{children}</Group> : null}
    </Group>
  );
}

const STATUS_COLORS: Record<string, string> = {
  PENDING: 'yellow', PROCESSING: 'yellow', PAID: 'green', COMPLETED: 'green', SUCCEEDED: 'green',
  EXPIRED: 'gray', REFUNDED: 'grape', DISPUTED: 'red', FAILED: 'red', ACTIVE: 'green', INACTIVE: 'gray',
  CREATED: 'blue', REJECTED: 'red', CANCELLED: 'gray',
};

/** `label` when the object's own words differ from a charge's (a subscription is "Ativa", "Aguardando autorização"). */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  const t = useT();
  return <Badge color={STATUS_COLORS[status] ?? 'gray'} variant="light">{label ?? t.status[status] ?? status}</Badge>;
}

// `amount: must be >= 100`, `firstPayment.amount: must be >= 100`, `amount: must be >= minAmount (1000)`.
const MONEY_BOUND = /^([\w.]*(?:amount|Amount)): must be ([<>]=) (?:minAmount \()?(\d+)\)?$/;
/** A bound of an amount is in cents: the merchant also reads it in reais (`R$ 1,00`). */
function inReais(message: string): string {
  const m = MONEY_BOUND.exec(message);
  return m ? `${message} (${m[2]} ${money(Number(m[3]))})` : message;
}

/**
 * An API error as the merchant reads it: the API's own words stay (they name the field and the rule), a Portuguese
 * reading goes first. Also for the creation check a form runs on a draft (the same words the API would answer).
 */
export function explainError(t: Dict, message: string, code?: string): string {
  const local = t.apiErrors[message] ?? (code ? t.apiErrors[code] : undefined);
  return local ? `${local} (${inReais(message)})` : inReais(message);
}

/**
 * A form's API error: the field it names (`<field>: <reason>`) gets it next to the input; any other error
 * is shown above the submit button. Inputs are never cleared on failure.
 */
export function useSubmit() {
  const t = useT();
  const [error, setError] = useState<ApiError | null>(null);
  const explain = (e: ApiError) => explainError(t, e.message, e.code);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, 'INTERNAL_ERROR', String(e)));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return {
    busy,
    error,
    setError,
    run,
    /** The reason for this field, for the input's `error` prop. */
    fieldError: (...names: string[]) => (error?.field && names.some((n) => error.field === n || error.field!.startsWith(`${n}.`) || error.field!.startsWith(`${n}[`)) ? explain(error) : undefined),
    /** The error when no listed field claims it. */
    otherError: (fields: string[]) => (error && !(error.field && fields.some((f) => error.field === f || error.field!.startsWith(`${f}.`) || error.field!.startsWith(`${f}[`))) ? explain(error) : null),
    /** The error as shown, whatever field it names. */
    message: error ? explain(error) : null,
  };
}

export function ErrorAlert({ message }: { message: string | null | undefined }) {
  const t = useT();
  if (!message) return null;
  return <Alert color="red" title={t.common.error} role="alert">{message}</Alert>;
}

/** Loads a value; `reload` fetches again. Errors other than 401 (handled globally) are shown. */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setError(null);
    fn().then((d) => { if (live) setData(d); }, (e: unknown) => { if (live) setError(e instanceof Error ? e.message : String(e)); });
    return () => { live = false; };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  return { data, error, reload: () => setTick((n) => n + 1), setData };
}

/** A cursor-paged list (docs/contract/http.md#pagination): `after` forward, `before` back. */
export function usePaged<T>(path: (cursor: string) => string, deps: unknown[]) {
  const [cursor, setCursor] = useState('');
  const loaded = useLoad<Page<T>>(() => api.page<T>(path(cursor)), [...deps, cursor]);
  useEffect(() => setCursor(''), deps); // eslint-disable-line react-hooks/exhaustive-deps
  return {
    ...loaded,
    items: loaded.data?.data ?? null,
    pager: (
      <Pager
        prev={loaded.data?.pagination?.before ? () => setCursor(`before=${encodeURIComponent(loaded.data!.pagination.before!)}`) : null}
        next={loaded.data?.pagination?.next ? () => setCursor(`after=${encodeURIComponent(loaded.data!.pagination.next!)}`) : null}
      />
    ),
  };
}

function Pager({ prev, next }: { prev: (() => void) | null; next: (() => void) | null }) {
  const t = useT();
  if (!prev && !next) return null;
  return (
    <Group justify="center" mt="md">
      <Button variant="default" onClick={prev ?? undefined} disabled={!prev}>{t.common.prev}</Button>
      <Button variant="default" onClick={next ?? undefined} disabled={!next}>{t.common.next}</Button>
    </Group>
  );
}

export function Loading({ error }: { error?: string | null }) {
  const t = useT();
  if (error) return <ErrorAlert message={error} />;
  return <Group justify="center" p="xl"><Loader aria-label={t.common.loading} /></Group>;
}

export function Empty() {
  const t = useT();
  return <Text c="dimmed" ta="center" p="lg">{t.common.empty}</Text>;
}

/** A value with a copy button (PIX copy-paste code, secrets shown once, invitation links). */
export function CopyField({ label, value, testId }: { label: string; value: string; testId?: string }) {
  const t = useT();
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>{label}</Text>
      <Code block data-testid={testId} style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>{value}</Code>
      <CopyButton value={value}>
        {({ copied, copy }) => <Button size="xs" variant="light" onClick={copy} style={{ alignSelf: 'flex-start' }}>{copied ? t.common.copied : `${t.common.copy}: ${label}`}</Button>}
      </CopyButton>
    </Stack>
  );
}

/** A secret the API shows once (API key, webhook secret). */
export function ShownOnce({ label, value, testId }: { label: string; value: string; testId?: string }) {
  const t = useT();
  return (
    <Alert color="yellow" title={t.common.shownOnce} role="status">
      <CopyField label={label} value={value} testId={testId} />
    </Alert>
  );
}

/** A button whose action is confirmed in a dialog first; the dialog shows the action's error. */
export function ConfirmButton({ label, question, onConfirm, color = 'red', variant = 'light', size = 'sm', dismiss }: {
  label: string; question: ReactNode; onConfirm: () => Promise<unknown>; color?: string; variant?: string; size?: string;
  /** The button that closes the dialog, when "Cancelar" would read as the action itself (cancelling a subscription). */
  dismiss?: string;
}) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const s = useSubmit();
  return (
    <>
      <Button color={color} variant={variant} size={size} onClick={() => setOpen(true)}>{label}</Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={label} centered>
        <Stack>
          {typeof question === 'string' ? <Text>{question}</Text> : question}
          <ErrorAlert message={s.message} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpen(false)}>{dismiss ?? t.common.cancel}</Button>
            <Button color={color} loading={s.busy} onClick={async () => {
              const done = await s.run(async () => { await onConfirm(); return true; });
              if (done) setOpen(false);
            }}>{label}</Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

/** An object's facts as label and value rows (a checkout, a subscription). */
export function Facts({ rows, testId }: { rows: Array<[string, ReactNode]>; testId?: string }) {
  return (
    <Table variant="vertical" layout="fixed" withRowBorders={false} data-testid={testId}>
      <Table.Tbody>
        {rows.map(([k, v]) => <Table.Tr key={k}><Table.Th w={150}>{k}</Table.Th><Table.Td style={{ wordBreak: 'break-word' }}>{v}</Table.Td></Table.Tr>)}
      </Table.Tbody>
    </Table>
  );
}
