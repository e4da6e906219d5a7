import { describe, expect, it } from 'vitest';
import {
  PIX_KEY_TYPES,
  isPixKeyType,
  isValidCnpj,
  isValidCpf,
  isValidTaxId,
  validatePixKey,
} from '../../src/pix/keys.js';

// Independent check-digit code, written from the Receita Federal tables (explicit weight lists).
function digitFor(body: string, weights: number[]): string {
  const sum = weights.reduce((acc, w, i) => acc + w * Number(body[i]), 0);
  return String((sum * 10) % 11 % 10);
}
function makeCpf(nine: string): string {
  const d1 = digitFor(nine, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return nine + d1 + digitFor(nine + d1, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
}
function makeCnpj(twelve: string): string {
  const w1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  const d1 = digitFor(twelve, w1);
  return twelve + d1 + digitFor(twelve + d1, [6, ...w1]);
}
const bodies = Array.from({ length: 40 }, (_, i) => String(104729 * (i + 1) * 7919).padStart(12, '0').slice(-12));
const generatedCpfs = bodies.map((b) => makeCpf(b.slice(0, 9)));
const generatedCnpjs = bodies.map((b) => makeCnpj(b));
// Same body with its last digit bumped: the real check digits no longer match.
const bumpLast = (s: string) => s.slice(0, -1) + String((Number(s.at(-1)) + 1) % 10);

describe('CPF', () => {
  it.each(['52998224725', '11144477735', '12345678909', ...generatedCpfs])('accepts %s', (cpf) => {
    expect(isValidCpf(cpf)).toBe(true);
    expect(validatePixKey('CPF', cpf)).toEqual({ ok: true, key: cpf });
  });
  it.each([
    '52998224724', // last check digit wrong
    '52998224715', // first check digit wrong
    ...generatedCpfs.slice(0, 10).map(bumpLast),
    '00000000000',
    '11111111111',
    '99999999999',
    '5299822472',
    '529982247250',
    '529.982.247-25',
    ' 52998224725',
    '5299822472a',
    '',
  ])('rejects %j', (cpf) => {
    expect(isValidCpf(cpf)).toBe(false);
    expect(validatePixKey('CPF', cpf)).toEqual({ ok: false, reason: 'invalid CPF' });
  });
});

describe('CNPJ', () => {
  it.each(['11222333000181', '11444777000161', '33000167000101', ...generatedCnpjs])('accepts %s', (cnpj) => {
    expect(isValidCnpj(cnpj)).toBe(true);
    expect(validatePixKey('CNPJ', cnpj)).toEqual({ ok: true, key: cnpj });
  });
  it.each([
    '11222333000180',
    '11222333000191',
    ...generatedCnpjs.slice(0, 10).map(bumpLast),
    '00000000000000',
    '11111111111111',
    '1122233300018',
    '112223330001811',
    '11.222.333/0001-81',
    '12ABC34501DE35', // alphanumeric CNPJ (2026) is out of scope for now
    '',
  ])('rejects %j', (cnpj) => {
    expect(isValidCnpj(cnpj)).toBe(false);
    expect(validatePixKey('CNPJ', cnpj)).toEqual({ ok: false, reason: 'invalid CNPJ' });
  });
});

describe('isValidTaxId', () => {
  it.each([
    ['52998224725', true],
    ['11222333000181', true],
    ['52998224724', false],
    ['11222333000180', false],
    ['00000000000', false],
    ['529982247250', false],
    ['529.982.247-25', false],
    ['', false],
  ])('%j → %s', (taxId, expected) => {
    expect(isValidTaxId(taxId)).toBe(expected);
  });
});

describe('EMAIL', () => {
  const at77 = 'a'.repeat(65) + '@example.com';
  it.each(['pix@bcb.gov.br', 'fulano.tal+pix@example.com', "o'neil@sub.example.co", 'Fulano@Example.COM', at77])(
    'accepts %s unchanged',
    (email) => {
      expect(validatePixKey('EMAIL', email)).toEqual({ ok: true, key: email });
    },
  );
  it.each([
    'a'.repeat(66) + '@example.com', // 78 characters
    'no-at.example.com',
    'a@localhost',
    '@example.com',
    'a@',
    'a b@example.com',
    'a@exa mple.com',
    'a@example..com',
    'a@-example.com',
    'a@b@example.com',
    'joão@example.com',
    ' pix@bcb.gov.br',
    '',
  ])('rejects %j', (email) => {
    expect(validatePixKey('EMAIL', email)).toEqual({ ok: false, reason: 'must be a valid e-mail of at most 77 characters' });
  });
});

describe('TELEFONE', () => {
  it.each(['+5511987654321', '+551133334444'])('accepts %s', (phone) => {
    expect(validatePixKey('TELEFONE', phone)).toEqual({ ok: true, key: phone });
  });
  it.each([
    '11987654321',
    '5511987654321',
    '+55119876543',
    '+55119876543210',
    '+14155551234',
    '+55 11 98765-4321',
    '+55(11)987654321',
    '+5511987654321 ',
    '',
  ])('rejects %j', (phone) => {
    expect(validatePixKey('TELEFONE', phone)).toEqual({ ok: false, reason: 'must be +55 followed by 10 or 11 digits' });
  });
});

describe('CHAVE_ALEATORIA', () => {
  it.each([
    ['123e4567-e12b-12d1-a456-426655440000', '123e4567-e12b-12d1-a456-426655440000'],
    ['F4C6089A-BFDE-4C00-A2D9-9EAA584B0219', 'f4c6089a-bfde-4c00-a2d9-9eaa584b0219'],
    ['00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000000'],
  ])('accepts %s as %s', (uuid, normalised) => {
    expect(validatePixKey('CHAVE_ALEATORIA', uuid)).toEqual({ ok: true, key: normalised });
  });
  it.each([
    'f4c6089abfde4c00a2d99eaa584b0219',
    'f4c6089a-bfde-4c00-a2d9-9eaa584b021',
    'f4c6089a-bfde-4c00-a2d9-9eaa584b02190',
    'g4c6089a-bfde-4c00-a2d9-9eaa584b0219',
    '{f4c6089a-bfde-4c00-a2d9-9eaa584b0219}',
    '',
  ])('rejects %j', (uuid) => {
    expect(validatePixKey('CHAVE_ALEATORIA', uuid)).toEqual({ ok: false, reason: 'must be a UUID' });
  });
});

describe('key types', () => {
  it('lists the five API types', () => {
    expect(PIX_KEY_TYPES).toEqual(['CPF', 'CNPJ', 'EMAIL', 'TELEFONE', 'CHAVE_ALEATORIA']);
    expect(PIX_KEY_TYPES.every(isPixKeyType)).toBe(true);
    expect([isPixKeyType('EVP'), isPixKeyType('cpf'), isPixKeyType(1), isPixKeyType(undefined)]).toEqual([false, false, false, false]);
  });
});
