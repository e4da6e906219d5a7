// docs/contract/psp.md#uncertain-payouts: a payout whose send is uncertain (a timeout, a reset, a 5xx) is asked about by its id,
// and only the PSP's word ends it — a failed status on it, or "not found" held for 10 minutes after the
// send. A 400/422 to a resend is not such word. Each step below is one run of the processing job, called
// directly (no worker) so the order of the PSP's answers is exact.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processWithdrawal } from '../../src/withdrawals/withdrawal-processing.service.js';
import { ADMIN_TOKEN, createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { startFakePsp, type FakePsp } from '../providers/fake-psp.js';
import { balanceOf, fundedMerchant, ledgerKinds } from './helpers.js';

let psp: FakePsp;
let t: TestContext;
beforeAll(async () => {
  psp = await startFakePsp();
  t = await createTestContext({ ...psp.env, API_PIX_TIMEOUT_MS: '500' }, { worker: false });
});
afterAll(async () => {
  await t?.close();
  await psp?.close();
});

const SEND = 'PUT /api/v2/gn/pix/';
const LOOKUP = 'GET /api/v2/gn/pix/enviados/';

async function withdrawal(fields: Record<string, unknown> = {}) {
  const m = await fundedMerchant(t, 10_000, { withdrawalFeeFixed: 100 });
  const res = await t.request('POST', '/withdrawals', { key: m.key, body: { amount: 3000, pixKey: randomUUID(), pixKeyType: 'CHAVE_ALEATORIA', ...fields } });
  expect(res.status).toBe(201);
  const id: string = res.body.data.id;
  return { m, id, idEnvio: id.replace('_', '') };
}
const read = async (m: { key: string }, id: string) => (await t.request('GET', `/withdrawals/${id}`, { key: m.key })).body.data;
const sends = (idEnvio: string) => psp.seen.filter((s) => s.method === 'PUT' && s.path === `/api/v2/gn/pix/${idEnvio}`).length;
/** The PSP-reported COMPLETED payouts that had been FAILED, as /metrics shows them. */
async function completedAfterFailed(): Promise<number> {
  const text = (await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).raw;
  const line = text.split('\n').find((l) => l.startsWith('pixgate_payouts_completed_after_failed_total{kind="withdrawal"}'));
  return line ? Number(line.split(' ').pop()) : 0;
}
/** Moves the recorded send back in time, as if `minutes` had passed since it. */
const age = (id: string, minutes: number) =>
  t.pool.query(`UPDATE withdrawals SET payout_sent_at = now() - make_interval(mins => $2) WHERE id = $1`, [id, minutes]);

describe('a payout with an uncertain send', () => {
  it('timeout → 404 while the PSP lags → 422 to the resend: stays PROCESSING, then completes, paid once', async () => {
    const { m, id, idEnvio } = await withdrawal();
    // The PSP takes the send but answers after the client gave up: it went through.
    psp.delayNext(SEND, 1000);
    await expect(processWithdrawal(t.rt, id)).rejects.toThrow(/no answer from the PSP/);
    await eventually(() => psp.envios.has(idEnvio));
    // Its lookup lags behind, and it refuses the resend of an idEnvio it already holds.
    psp.failNext(LOOKUP, 404, 'Pix enviado nao encontrado');
    psp.failNext(SEND, 422, 'idEnvio ja utilizado');
    await processWithdrawal(t.rt, id);
    expect(sends(idEnvio)).toBe(2);
    expect(await read(m, id)).toMatchObject({ status: 'PROCESSING', failedReason: null });
    expect(await balanceOf(t, m.key)).toEqual({ available: 10_000 - 3100, pending: 3100, blocked: 0 });

    // Even 11 minutes on, a "not found" after the PSP once reported the payout proves nothing.
    await processWithdrawal(t.rt, id); // the lookup now finds it, EM_PROCESSAMENTO
    await age(id, 11);
    psp.failNext(LOOKUP, 404, 'Pix enviado nao encontrado');
    await processWithdrawal(t.rt, id);
    expect((await read(m, id)).status).toBe('PROCESSING');

    psp.envios.get(idEnvio)!.status = 'REALIZADO';
    await processWithdrawal(t.rt, id);
    const done = await read(m, id);
    expect(done).toMatchObject({ status: 'COMPLETED', end2endId: psp.envios.get(idEnvio)!.endToEndId });
    expect(sends(idEnvio)).toBe(2);
    expect(await ledgerKinds(t, id)).toEqual(['WITHDRAWAL_RESERVE', 'WITHDRAWAL_PAID']);
    expect(await balanceOf(t, m.key)).toEqual({ available: 10_000 - 3100, pending: 0, blocked: 0 });
    await t.assertLedger();
  });

  it('a send that never arrived: PROCESSING while "not found" is younger than 10 minutes, FAILED with the money back after', async () => {
    const { m, id, idEnvio } = await withdrawal();
    psp.delayNext(SEND, 1000);
    psp.failNext(SEND, 503); // answered after the client gave up, and nothing made
    await expect(processWithdrawal(t.rt, id)).rejects.toThrow(/no answer from the PSP/);
    await new Promise((r) => setTimeout(r, 700));
    expect(psp.envios.has(idEnvio)).toBe(false);
    for (const minutes of [0, 5, 9]) {
      await age(id, minutes);
      psp.failNext(SEND, 422, 'Chave Pix nao encontrada'); // a refused resend: no word on the first send
      await processWithdrawal(t.rt, id);
      expect(await read(m, id)).toMatchObject({ status: 'PROCESSING', failedReason: null });
    }
    expect(sends(idEnvio)).toBe(4);
    await age(id, 11);
    await processWithdrawal(t.rt, id);
    expect(await read(m, id)).toMatchObject({ status: 'FAILED', failedReason: 'The PSP has no record of the payout' });
    expect(sends(idEnvio)).toBe(4); // failed on the PSP's word, not sent again
    expect(await ledgerKinds(t, id)).toEqual(['WITHDRAWAL_RESERVE', 'WITHDRAWAL_RELEASE']);
    expect(await balanceOf(t, m.key)).toEqual({ available: 10_000, pending: 0, blocked: 0 });
    await t.assertLedger();
  });

  it('a resend that times out again restarts the 10 minutes', async () => {
    const { m, id } = await withdrawal();
    const back = (minutes: number) =>
      t.pool.query(`UPDATE withdrawals SET payout_sent_at = payout_sent_at - make_interval(mins => $2) WHERE id = $1`, [id, minutes]);
    psp.failNext(SEND, 500);
    await expect(processWithdrawal(t.rt, id)).rejects.toThrow(/answered 500/);
    await back(9);
    psp.failNext(SEND, 502); // may have made the payout: the clock starts again from this send
    await expect(processWithdrawal(t.rt, id)).rejects.toThrow(/answered 502/);
    await back(2); // 11 minutes after the first send, 2 after the latest
    psp.failNext(SEND, 422);
    await processWithdrawal(t.rt, id);
    expect((await read(m, id)).status).toBe('PROCESSING');
    await back(9);
    await processWithdrawal(t.rt, id);
    expect((await read(m, id)).status).toBe('FAILED');
  });

  it('the PSP\'s failed status on the payout fails it at once', async () => {
    const { m, id, idEnvio } = await withdrawal();
    psp.failNext(SEND, 500);
    await expect(processWithdrawal(t.rt, id)).rejects.toThrow(/answered 500/);
    psp.envios.set(idEnvio, { idEnvio, endToEndId: 'E12345678202611251200abcdefghijk', valor: '30.00', status: 'NAO_REALIZADO', motivo: 'Conta encerrada', body: {} });
    await processWithdrawal(t.rt, id);
    expect(await read(m, id)).toMatchObject({ status: 'FAILED', failedReason: 'Conta encerrada' });
    expect(await balanceOf(t, m.key)).toEqual({ available: 10_000, pending: 0, blocked: 0 });
    await t.assertLedger();
  });

  it('a refusal of the first and only send fails it at once', async () => {
    const { m, id } = await withdrawal({ pixKey: 'ninguem@nao-existe.test', pixKeyType: 'EMAIL' });
    await processWithdrawal(t.rt, id);
    expect(await read(m, id)).toMatchObject({ status: 'FAILED', failedReason: 'Payout refused by the PSP: Chave Pix nao encontrada' });
    expect(await balanceOf(t, m.key)).toEqual({ available: 10_000, pending: 0, blocked: 0 });
  });

  it('a COMPLETED that arrives for a FAILED withdrawal changes no money; it is counted at /metrics for the operator', async () => {
    const { m, id, idEnvio } = await withdrawal();
    psp.delayNext(SEND, 1000);
    psp.failNext(SEND, 503);
    await expect(processWithdrawal(t.rt, id)).rejects.toThrow(/no answer from the PSP/);
    await new Promise((r) => setTimeout(r, 700));
    await age(id, 11);
    await processWithdrawal(t.rt, id);
    expect(await read(m, id)).toMatchObject({ status: 'FAILED', failedReason: 'The PSP has no record of the payout' });
    const before = await completedAfterFailed();
    // The PSP's lookup had lost it, yet it was paid: a poll brings REALIZADO.
    psp.envios.set(idEnvio, { idEnvio, endToEndId: 'E12345678202611251200abcdefghijk', valor: '30.00', status: 'REALIZADO', body: {} });
    await t.rt.provider.tasks!()['api-pix:payout:poll']!({ id, attempt: 0 }, {} as never);
    expect(await read(m, id)).toMatchObject({ status: 'FAILED', end2endId: null });
    expect(await ledgerKinds(t, id)).toEqual(['WITHDRAWAL_RESERVE', 'WITHDRAWAL_RELEASE']);
    expect(await balanceOf(t, m.key)).toEqual({ available: 10_000, pending: 0, blocked: 0 });
    expect(await completedAfterFailed()).toBe(before + 1);
    await t.assertLedger();
  });
});
