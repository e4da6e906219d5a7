import { useEffect, useState } from 'react';
import { Select } from '@mantine/core';
import { api, query, type Customer } from './api';
import { useLoad } from './components';
import { useLang } from './i18n';

/** How many customers the picker loads at once; others are found by their exact e-mail or CPF/CNPJ. */
const CUSTOMERS_LOADED = 100;

/**
 * A payer BACEN accepts: a name and a CPF/CNPJ — a due-date charge's `devedor`
 * (docs/contract/due-date-charges.md#creating) and Pix Automático's payer (docs/contract/subscriptions.md#create).
 */
const canPay = (c: Customer) => !!c.name && !!c.taxId;

/**
 * The customers to pick from: the newest ones, plus the one whose exact e-mail or CPF/CNPJ is typed (the list
 * filters by those only), so a store with many customers still finds each.
 */
function useCustomers(search: string) {
  const recent = useLoad(() => api.get<Customer[]>(`/customers${query({ limit: CUSTOMERS_LOADED })}`), []);
  const [found, setFound] = useState<Customer[]>([]);
  useEffect(() => {
    const text = search.trim();
    const digits = text.replace(/\D/g, '');
    const filter = text.includes('@') ? { email: text } : /^[\d.\-/ ]+$/.test(text) && (digits.length === 11 || digits.length === 14) ? { taxId: digits } : null;
    if (!filter) return;
    let live = true;
    const timer = setTimeout(() => {
      api.get<Customer[]>(`/customers${query(filter)}`).then((cs) => { if (live) setFound(cs); }, () => {});
    }, 300);
    return () => { live = false; clearTimeout(timer); };
  }, [search]);
  const byId = new Map<string, Customer>();
  for (const c of [...found, ...(recent.data ?? [])]) byId.set(c.id, c);
  return { customers: [...byId.values()], error: recent.error };
}

/**
 * One of the merchant's customers, searched by name, e-mail or CPF/CNPJ. `payer`: only a customer BACEN accepts as
 * the payer can be picked; the others are offered, disabled, with what they miss.
 */
export function CustomerPicker({ label, description, payer, value, onChange, error }: {
  label: string; description?: string; payer: boolean; value: string; onChange(id: string, label: string): void; error?: string;
}) {
  const t = useLang().t;
  const [search, setSearch] = useState('');
  const { customers, error: loadError } = useCustomers(search);
  const data = customers.map((c) => ({
    value: c.id,
    label: canPay(c) ? `${c.name} · ${c.taxId} · ${c.email}` : `${c.name ?? c.email} · ${c.email}${payer ? ` — ${t.picker.missing}` : ''}`,
    disabled: payer && !canPay(c),
  }));
  return (
    <Select label={label} description={description} placeholder={t.picker.search} searchable required={payer} clearable={!payer}
      data={data} value={value || null} onChange={(v, option) => onChange(v ?? '', option?.label ?? '')} searchValue={search} onSearchChange={setSearch}
      nothingFoundMessage={t.picker.none} error={error ?? loadError ?? undefined} maxDropdownHeight={280} comboboxProps={{ withinPortal: true }} />
  );
}
