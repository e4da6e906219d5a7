export const PIX_KEY_TYPES = ['CPF', 'CNPJ', 'EMAIL', 'TELEFONE', 'CHAVE_ALEATORIA'] as const;
export type PixKeyType = (typeof PIX_KEY_TYPES)[number];

export type PixKeyCheck = { ok: true; key: string } | { ok: false; reason: string };

export function isPixKeyType(s: unknown): s is PixKeyType {
  return typeof s === 'string' && (PIX_KEY_TYPES as readonly string[]).includes(s);
}

// Repeated-digit numbers pass the mod-11 arithmetic but are never issued (docs/contract/withdrawals.md#pix-keys).
const REPEATED = /^(\d)\1*$/;

/**
 * Receita Federal mod-11 check digit. Weights run 2, 3, … from the rightmost digit; CPF never wraps
 * (weights up to 11), CNPJ wraps after 9 (…, 9, 2, 3, …). A remainder below 2 gives 0, else 11 − r.
 */
function mod11Digit(body: string, weightCycle: number): number {
  let sum = 0;
  for (let k = 0; k < body.length; k++) {
    sum += (body.charCodeAt(body.length - 1 - k) - 48) * (2 + (k % weightCycle));
  }
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

function hasCheckDigits(digits: string, weightCycle: number): boolean {
  const body = digits.slice(0, -2);
  const first = mod11Digit(body, weightCycle);
  const second = mod11Digit(body + String(first), weightCycle);
  return digits.endsWith(`${first}${second}`);
}

/** CPF: exactly 11 digits, no mask, valid check digits. */
export function isValidCpf(s: string): boolean {
  return /^\d{11}$/.test(s) && !REPEATED.test(s) && hasCheckDigits(s, 10);
}

/** Numeric CNPJ: exactly 14 digits, no mask, valid check digits. */
export function isValidCnpj(s: string): boolean {
  return /^\d{14}$/.test(s) && !REPEATED.test(s) && hasCheckDigits(s, 8);
}

/** 11 digits are checked as a CPF, 14 as a CNPJ; anything else is invalid. */
export function isValidTaxId(s: string): boolean {
  if (s.length === 11) return isValidCpf(s);
  if (s.length === 14) return isValidCnpj(s);
  return false;
}

// DICT e-mail pattern (bacen/pix-dict-api), matched case-insensitively and requiring a dot in the domain.
const EMAIL =
  /^[a-z0-9.!#$&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;
const PHONE = /^\+55\d{10,11}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Validates a key of `type` (docs/contract/withdrawals.md#pix-keys). The returned key is the form to store: unchanged,
 * except a CHAVE_ALEATORIA, which is lower-cased as DICT issues it. `reason` is meant to follow `<field>: `.
 */
export function validatePixKey(type: PixKeyType, key: string): PixKeyCheck {
  switch (type) {
    case 'CPF':
      return isValidCpf(key) ? { ok: true, key } : { ok: false, reason: 'invalid CPF' };
    case 'CNPJ':
      return isValidCnpj(key) ? { ok: true, key } : { ok: false, reason: 'invalid CNPJ' };
    case 'EMAIL':
      return key.length <= 77 && EMAIL.test(key)
        ? { ok: true, key }
        : { ok: false, reason: 'must be a valid e-mail of at most 77 characters' };
    case 'TELEFONE':
      return PHONE.test(key) ? { ok: true, key } : { ok: false, reason: 'must be +55 followed by 10 or 11 digits' };
    case 'CHAVE_ALEATORIA':
      return UUID.test(key) ? { ok: true, key: key.toLowerCase() } : { ok: false, reason: 'must be a UUID' };
  }
}
