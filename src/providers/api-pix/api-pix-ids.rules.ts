import { formatCents } from '../../pix/index.js';

/**
 * Our ids (`ref_…`, `wd_…`) as API Pix ids (`[a-zA-Z0-9]{1,35}`: a devolução id, an idEnvio): the
 * underscore dropped. Deterministic, so a retried request names the same devolução or payout, and
 * reversible with `fromPspId`, so a PSP's notification finds our record.
 */
export function toPspId(id: string): string {
  const out = id.replace('_', '');
  if (!/^[A-Za-z0-9]{1,35}$/.test(out)) throw new Error('id does not fit the API Pix id pattern');
  return out;
}

/** The id of ours behind a PSP id with the given prefix; null for one we did not issue (e.g. a MED devolução). */
export function fromPspId(prefix: 'ref' | 'wd', pspId: string): string | null {
  const m = new RegExp(`^${prefix}([A-Za-z0-9]{1,32})$`).exec(pspId);
  return m ? `${prefix}_${m[1]}` : null;
}

/** API Pix money (`\d{1,10}\.\d{2}`) from cents, without floats. */
export const toValor = (cents: number): string => formatCents(cents);

/** Cents from API Pix money, without floats; null when the text is not `\d{1,10}\.\d{2}`. */
export function fromValor(valor: string): number | null {
  const m = /^(\d{1,10})\.(\d{2})$/.exec(valor);
  return m ? Number(m[1]) * 100 + Number(m[2]) : null;
}

/** API Pix text limits count characters (code points), not UTF-16 units. */
export const truncate = (text: string, max: number): string => Array.from(text).slice(0, max).join('');
