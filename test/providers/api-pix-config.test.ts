import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { fromPspId, fromValor, toPspId, toValor, truncate } from '../../src/providers/api-pix/api-pix-ids.rules.js';
import { isValidDynamicTxid, newDynamicTxid } from '../../src/pix/index.js';

const dir = mkdtempSync(join(tmpdir(), 'api-pix-config-'));
const cert = join(dir, 'client.crt');
const key = join(dir, 'client.key');
writeFileSync(cert, 'x');
writeFileSync(key, 'x');
const base = { ADMIN_TOKEN: 'adm-'.padEnd(40, 'x'), ENCRYPTION_KEY: randomBytes(32).toString('hex') };
const apiPix = {
  PIX_PROVIDER: 'api-pix', API_PIX_BASE_URL: 'https://psp.example/api/v2/', API_PIX_CLIENT_ID: 'id', API_PIX_CLIENT_SECRET: 'secret',
  API_PIX_CERT_FILE: cert, API_PIX_KEY_FILE: key, API_PIX_WEBHOOK_TOKEN: 't'.repeat(32), API_PIX_PAYOUT_KEY: 'payouts@example.com',
  API_PIX_RECEIVER_AGENCY: '0001', API_PIX_RECEIVER_ACCOUNT: '1234567', API_PIX_RECEIVER_ACCOUNT_TYPE: 'CORRENTE',
};
const load = (env: Record<string, string | undefined>) => loadConfig({ ...base, ...env }, { dataDir: dir });

describe('config: PIX_PROVIDER and API_PIX_*', () => {
  it('defaults to the simulator and reads no API_PIX_* variable then', () => {
    const c = load({ API_PIX_BASE_URL: 'not a url' });
    expect(c.pixProvider).toBe('simulator');
    expect(c.apiPix).toBeNull();
    expect(() => load({ PIX_PROVIDER: 'efi' })).toThrow('PIX_PROVIDER must be simulator or api-pix');
  });

  it('api-pix: defaults and the token URL under the base', () => {
    expect(load(apiPix).apiPix).toEqual({
      baseUrl: 'https://psp.example/api/v2', tokenUrl: 'https://psp.example/api/v2/oauth/token', clientId: 'id', clientSecret: 'secret',
      scopes: 'cob.write cob.read pix.write pix.read rec.write rec.read solicrec.write solicrec.read cobr.write cobr.read payloadlocationrec.write',
      certFile: cert, keyFile: key, caFile: null, webhookToken: 't'.repeat(32),
      timeoutMs: 10_000, pollIntervalMs: 5_000, reconcileIntervalS: 300, payoutKey: 'payouts@example.com', receiverKey: null,
      receiverAccount: { agency: '0001', account: '1234567', type: 'CORRENTE' },
    });
    expect(load({ ...apiPix, API_PIX_TOKEN_URL: 'https://auth.psp.example/oauth/token' }).apiPix!.tokenUrl).toBe('https://auth.psp.example/oauth/token');
  });

  it.each([
    ['API_PIX_BASE_URL', undefined, 'API_PIX_BASE_URL is required when PIX_PROVIDER=api-pix'],
    ['API_PIX_BASE_URL', 'http://psp.example', 'API_PIX_BASE_URL must be an https URL'],
    ['API_PIX_TOKEN_URL', 'http://psp.example/oauth/token', 'API_PIX_TOKEN_URL must be an https URL'],
    ['API_PIX_CLIENT_ID', undefined, 'API_PIX_CLIENT_ID is required when PIX_PROVIDER=api-pix'],
    ['API_PIX_CLIENT_SECRET', '', 'API_PIX_CLIENT_SECRET is required when PIX_PROVIDER=api-pix'],
    ['API_PIX_CERT_FILE', undefined, 'API_PIX_CERT_FILE is required when PIX_PROVIDER=api-pix'],
    ['API_PIX_KEY_FILE', join(dir, 'missing.key'), 'API_PIX_KEY_FILE: file not found'],
    ['API_PIX_CA_FILE', join(dir, 'missing.ca'), 'API_PIX_CA_FILE: file not found'],
    ['API_PIX_WEBHOOK_TOKEN', 'short', 'API_PIX_WEBHOOK_TOKEN must be 32-256 characters [A-Za-z0-9._~-]'],
    ['API_PIX_WEBHOOK_TOKEN', 'x'.repeat(31) + '/', 'API_PIX_WEBHOOK_TOKEN must be 32-256 characters [A-Za-z0-9._~-]'],
    ['API_PIX_PAYOUT_KEY', undefined, 'API_PIX_PAYOUT_KEY is required when PIX_PROVIDER=api-pix'],
    ['API_PIX_RECEIVER_AGENCY', undefined, 'API_PIX_RECEIVER_AGENCY is required when PIX_PROVIDER=api-pix'],
    ['API_PIX_RECEIVER_AGENCY', '12345', 'API_PIX_RECEIVER_AGENCY must be 1 to 4 digits'],
    ['API_PIX_RECEIVER_ACCOUNT', undefined, 'API_PIX_RECEIVER_ACCOUNT is required when PIX_PROVIDER=api-pix'],
    ['API_PIX_RECEIVER_ACCOUNT', '12-3', 'API_PIX_RECEIVER_ACCOUNT must be 1 to 20 digits'],
    ['API_PIX_RECEIVER_ACCOUNT', '1'.repeat(21), 'API_PIX_RECEIVER_ACCOUNT must be 1 to 20 digits'],
    ['API_PIX_RECEIVER_ACCOUNT_TYPE', undefined, 'API_PIX_RECEIVER_ACCOUNT_TYPE is required when PIX_PROVIDER=api-pix'],
    ['API_PIX_RECEIVER_ACCOUNT_TYPE', 'SALARIO', 'API_PIX_RECEIVER_ACCOUNT_TYPE must be CORRENTE, POUPANCA or PAGAMENTO'],
    ['API_PIX_TIMEOUT_MS', '0', 'API_PIX_TIMEOUT_MS must be an integer >= 1'],
    ['API_PIX_RECONCILE_INTERVAL_S', '0', 'API_PIX_RECONCILE_INTERVAL_S must be an integer >= 1'],
  ])('api-pix: %s=%s is refused', (name, value, message) => {
    expect(() => load({ ...apiPix, [name]: value })).toThrow(message);
  });

  it('plain http only with API_PIX_ALLOW_HTTP, and then no certificate is needed', () => {
    const http = { ...apiPix, API_PIX_BASE_URL: 'http://127.0.0.1:9', API_PIX_CERT_FILE: undefined, API_PIX_KEY_FILE: undefined };
    expect(() => load(http)).toThrow('API_PIX_BASE_URL must be an https URL');
    expect(load({ ...http, API_PIX_ALLOW_HTTP: 'true' }).apiPix).toMatchObject({ certFile: null, keyFile: null });
  });
});

describe('API Pix ids and money', () => {
  it('txids are 32 alphanumerics from node:crypto, inside the dynamic pattern', () => {
    const txids = new Set(Array.from({ length: 200 }, newDynamicTxid));
    expect(txids.size).toBe(200);
    for (const txid of txids) expect(isValidDynamicTxid(txid) && txid.length === 32).toBe(true);
  });

  it('our ids map to API Pix ids and back', () => {
    expect(toPspId('ref_4fG7hJ2kL9mN0pQ1rS3tUv')).toBe('ref4fG7hJ2kL9mN0pQ1rS3tUv');
    expect(fromPspId('ref', 'ref4fG7hJ2kL9mN0pQ1rS3tUv')).toBe('ref_4fG7hJ2kL9mN0pQ1rS3tUv');
    expect(fromPspId('wd', toPspId('wd_abc'))).toBe('wd_abc');
    expect(fromPspId('ref', 'D12345678202009091000abcde123456')).toBeNull();
    expect(fromPspId('ref', 'wdabc')).toBeNull();
    expect(() => toPspId('ref_' + 'a'.repeat(40))).toThrow();
  });

  it('valor ⇄ cents without floats', () => {
    expect([0, 1, 10, 100, 1234, 99_999_999_999].map(toValor)).toEqual(['0.00', '0.01', '0.10', '1.00', '12.34', '999999999.99']);
    expect(['0.01', '12.34', '110.00', '9999999999.99'].map(fromValor)).toEqual([1, 1234, 11_000, 999_999_999_999]);
    for (const bad of ['1', '1.0', '1.000', '-1.00', '1,00', ' 1.00', '1e2.00', '12345678901.00']) expect(fromValor(bad)).toBeNull();
  });

  it('truncates by characters, never splitting one', () => {
    expect(truncate('😀'.repeat(150), 140)).toBe('😀'.repeat(140));
  });
});
