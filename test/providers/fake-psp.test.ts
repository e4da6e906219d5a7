import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { newEndToEndId } from '../../src/pix/index.js';
import { createApiPixClient, type ApiPixClient } from '../../src/providers/api-pix/api-pix.client.js';
import { startFakePsp, type FakePsp } from './fake-psp.js';

// The fake PSP's own check: what breaks BACEN's document is caught, so a test over it cannot pass by accident.
let psp: FakePsp;
let api: ApiPixClient;
beforeAll(async () => {
  psp = await startFakePsp();
  const config = loadConfig({ ...psp.env, API_PIX_TIMEOUT_MS: '20000', ADMIN_TOKEN: 'x'.repeat(40), ENCRYPTION_KEY: randomBytes(32).toString('hex') },
    { dataDir: mkdtempSync(join(tmpdir(), 'pixgate-fake-psp-')) });
  api = createApiPixClient(config.apiPix!);
});
afterAll(async () => {
  psp.violations.length = 0;
  await psp?.close();
});

const caught = () => {
  try {
    psp.assertConformance();
    return '';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('the fake PSP checks every exchange against BACEN\'s API Pix document', () => {
  it('passes conforming exchanges', async () => {
    const pix = psp.receive({ txid: 'A'.repeat(30), valor: '10.00' });
    expect(await api.find(`/pix/${pix.endToEndId}`, 'GET')).toMatchObject({ endToEndId: pix.endToEndId, valor: '10.00' });
    const q = new URLSearchParams({ inicio: new Date(Date.now() - 60_000).toISOString(), fim: new Date().toISOString() });
    expect(await api.request('GET', `/pix?${q}`, 'GET')).toMatchObject({ parametros: { paginacao: { paginaAtual: 0 } } });
    expect(caught()).toBe('');
  });

  it('catches a request that breaks it: a missing required query parameter, a cob body without valor, a bad devolução id', async () => {
    await expect(api.request('GET', `/pix?fim=${encodeURIComponent(new Date().toISOString())}`, 'GET')).rejects.toThrow('400');
    expect(caught()).toMatch(/request GET \/pix: .*inicio/);
    await expect(api.request('PUT', `/cob/${'B'.repeat(30)}`, 'PUT', { chave: 'x@example.com', calendario: { expiracao: 60 } })).rejects.toThrow('400');
    expect(caught()).toMatch(/request PUT \/cob\/B+: .*valor/);
    const e2e = newEndToEndId('87654321', new Date());
    await expect(api.request('PUT', `/pix/${e2e}/devolucao/${'d'.repeat(36)}`, 'PUT', { valor: '1.00' })).rejects.toThrow();
    expect(caught()).toMatch(/request PUT \/pix\/.*\/devolucao/);
  });

  it('catches an answer of its own that breaks it', async () => {
    const pix = psp.receive({ txid: 'C'.repeat(30), valor: '10.5' });
    await api.find(`/pix/${pix.endToEndId}`, 'GET');
    expect(caught()).toMatch(/answer 200 to GET \/pix\/[A-Za-z0-9]{32}: \/valor must match pattern/);
  });

  it('catches a route that is neither API Pix nor a payout endpoint', async () => {
    await expect(api.request('GET', '/cobranca/nada', 'GET')).rejects.toThrow('404');
    expect(caught()).toMatch(/not a route of BACEN's API Pix/);
  });
});
