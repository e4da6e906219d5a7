// docs/contract/psp.md#payout-jobs and #uncertain-payouts for devoluções: a charge refund's and an unmatched
// payment's. A send that got no clear answer is uncertain: a refusal of the resend proves nothing (the PSP
// refuses an id it already holds), and only the PSP's own status of the devolução — or its "not found" held
// for 10 minutes — ends it. Each step is one run of the job, called directly (no worker), so the order of
// the PSP's answers is exact.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatCents } from '../../src/pix/index.js';
import { requestProviderRefund } from '../../src/refunds/refund-settlement.service.js';
import { unmatchedTasks } from '../../src/unmatched/unmatched.tasks.js';
import { balance, check, events } from '../charges/support.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { startFakePsp, type FakePsp } from './fake-psp.js';

let psp: FakePsp;
let t: TestContext;
beforeAll(async () => {
  psp = await startFakePsp();
  t = await createTestContext({ ...psp.env, API_PIX_TIMEOUT_MS: '500' }, { worker: false });
});
afterEach(() => psp.assertConformance());
afterAll(async () => {
  await t?.close();
  await psp?.close();
});

const notify = (pix: unknown[]) =>
  t.request('POST', '/providers/api-pix/webhook/pix', { headers: { 'x-webhook-token': psp.env.API_PIX_WEBHOOK_TOKEN! }, body: { pix } });
const puts = (endToEndId: string) => psp.seen.filter((s) => s.method === 'PUT' && s.path.startsWith(`/api/v2/pix/${endToEndId}/devolucao/`)).length;
const devolucoesOf = (endToEndId: string) => [...psp.devolucoes.entries()].filter(([k]) => k.startsWith(`${endToEndId}/`)).map(([, d]) => d);

describe('a charge refund', () => {
  /** A charge paid through the PSP and refunded: its refund PENDING, the request job not run yet. */
  async function refunded(amount = 5000) {
    const m = await t.merchant();
    const c = (await t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount } })).body.data;
    const pix = psp.receive({ txid: c.txid, valor: formatCents(amount) });
    expect((await notify([pix])).status).toBe(200);
    const res = await t.request('POST', `/transparents/refund?id=${c.id}`, { key: m.key });
    expect(res.body.data.refund.status).toBe('PENDING');
    return { m, c, pix, refundId: res.body.data.refund.id as string };
  }
  const age = (refundId: string, minutes: number) =>
    t.pool.query(`UPDATE refunds SET payout_sent_at = now() - make_interval(mins => $2) WHERE id = $1`, [refundId, minutes]);

  it('timeout → "not found" while the PSP lags → 400 to the resend: stays PENDING, then the PSP\'s DEVOLVIDO completes it, debited once', async () => {
    const { m, c, pix, refundId } = await refunded();
    const PUT = `PUT /api/v2/pix/${pix.endToEndId}/devolucao/`;
    // The PSP takes the PUT but answers after the client gave up: the devolução was made.
    psp.delayNext(PUT, 1000);
    await expect(requestProviderRefund(t.rt, refundId)).rejects.toThrow(/no answer from the PSP/);
    await eventually(() => devolucoesOf(pix.endToEndId).length === 1);
    // Its lookup lags, and it refuses the resend of an id it holds ("Id de devolucao ja utilizado").
    psp.failNext(`GET /api/v2/pix/${pix.endToEndId}/devolucao/`, 404, 'Devolucao nao encontrada');
    await requestProviderRefund(t.rt, refundId);
    expect(puts(pix.endToEndId)).toBe(2);
    expect((await check(t, m, c.id)).refund).toMatchObject({ status: 'PENDING', failedReason: null });
    expect(await events(t, m.id, 'REFUND_FAILED')).toEqual([]);
    expect(await balance(t, m)).toMatchObject({ available: 0 });

    const [devolucao] = devolucoesOf(pix.endToEndId);
    devolucao!.status = 'DEVOLVIDO';
    await requestProviderRefund(t.rt, refundId);
    const charge = await check(t, m, c.id);
    expect(charge.refund).toMatchObject({ status: 'COMPLETED' });
    expect(charge.status).toBe('REFUNDED');
    expect(puts(pix.endToEndId)).toBe(2);
    expect(await events(t, m.id, 'REFUND_COMPLETED')).toHaveLength(1);
    expect(await balance(t, m)).toMatchObject({ available: 0 });
    await t.assertLedger();
  });

  it('one run at a time: a second run of the job beside a slow send leaves without sending', async () => {
    const { m, c, pix, refundId } = await refunded();
    psp.delayNext(`PUT /api/v2/pix/${pix.endToEndId}/devolucao/`, 300);
    await Promise.all([requestProviderRefund(t.rt, refundId), requestProviderRefund(t.rt, refundId)]);
    expect(puts(pix.endToEndId)).toBe(1);
    expect((await check(t, m, c.id)).refund.status).toBe('PENDING');
    const { rows } = await t.pool.query('SELECT payout_sends, payout_seen FROM refunds WHERE id = $1', [refundId]);
    expect(rows[0]).toEqual({ payout_sends: 1, payout_seen: true });
  });

  it('a devolução that never reached the PSP: PENDING while "not found" is younger than 10 minutes, then FAILED with every debit back', async () => {
    const { m, c, pix, refundId } = await refunded();
    const PUT = `PUT /api/v2/pix/${pix.endToEndId}/devolucao/`;
    psp.delayNext(PUT, 1000);
    psp.failNext(PUT, 503); // answered after the client gave up, and nothing made
    await expect(requestProviderRefund(t.rt, refundId)).rejects.toThrow(/no answer from the PSP/);
    await new Promise((r) => setTimeout(r, 700));
    expect(devolucoesOf(pix.endToEndId)).toEqual([]);
    for (const minutes of [0, 9]) {
      await age(refundId, minutes);
      psp.failNext(PUT, 422, 'Devolucao nao permitida'); // a refused resend: no word on the first send
      await requestProviderRefund(t.rt, refundId);
      expect((await check(t, m, c.id)).refund).toMatchObject({ status: 'PENDING', failedReason: null });
    }
    await age(refundId, 11);
    await requestProviderRefund(t.rt, refundId);
    const charge = await check(t, m, c.id);
    expect(charge.refund).toMatchObject({ status: 'FAILED', failedReason: 'The PSP has no record of the devolução' });
    expect(charge.status).toBe('PAID');
    expect(puts(pix.endToEndId)).toBe(3); // failed on the PSP's word, not sent again
    expect(await events(t, m.id, 'REFUND_FAILED')).toHaveLength(1);
    expect(await balance(t, m)).toMatchObject({ available: 5000 });
    await t.assertLedger();
  });
});

describe('an unmatched payment\'s devolução', () => {
  /** A PIX no charge takes, its refund asked for by the operator: REFUNDING, the job not run yet. */
  async function refunding(valor: string) {
    const pix = psp.receive({ valor });
    expect((await notify([pix])).status).toBe(200);
    const { rows } = await t.pool.query<{ id: string }>('SELECT id FROM unmatched_payments WHERE end2end_id = $1', [pix.endToEndId]);
    const id = rows[0]!.id;
    expect((await t.admin('POST', `/admin/unmatched-payments/${id}/refund`)).body.data.status).toBe('REFUNDING');
    const row = (await t.pool.query<{ devolucao_id: string }>('SELECT devolucao_id FROM unmatched_payments WHERE id = $1', [id])).rows[0]!;
    const run = () => unmatchedTasks(t.rt)['unmatched:refund']!({ devolucaoId: row.devolucao_id }, {} as never);
    const read = async () => ((await t.admin('GET', '/admin/unmatched-payments?limit=100')).body.data as any[]).find((u) => u.id === id);
    return { pix, run, read };
  }

  it('is not reopened when the resend after an uncertain send is refused: the PSP\'s status of the devolução decides', async () => {
    const { pix, run, read } = await refunding('7.00');
    const PUT = `PUT /api/v2/pix/${pix.endToEndId}/devolucao/`;
    psp.delayNext(PUT, 1000);
    await expect(run()).rejects.toThrow(/no answer from the PSP/);
    await eventually(() => devolucoesOf(pix.endToEndId).length === 1);
    psp.failNext(`GET /api/v2/pix/${pix.endToEndId}/devolucao/`, 404, 'Devolucao nao encontrada');
    await run(); // the resend: 400, the id is taken
    expect(puts(pix.endToEndId)).toBe(2);
    expect(await read()).toMatchObject({ status: 'REFUNDING', failedReason: null });

    devolucoesOf(pix.endToEndId)[0]!.status = 'DEVOLVIDO';
    await run();
    expect(await read()).toMatchObject({ status: 'REFUNDED', failedReason: null });
    expect(puts(pix.endToEndId)).toBe(2);
    await t.assertLedger();
  });

  it('one run at a time: a second run beside a slow send leaves without sending', async () => {
    const { pix, run, read } = await refunding('9.00');
    psp.delayNext(`PUT /api/v2/pix/${pix.endToEndId}/devolucao/`, 300);
    await Promise.all([run(), run()]);
    expect(puts(pix.endToEndId)).toBe(1);
    expect(await read()).toMatchObject({ status: 'REFUNDING', failedReason: null });
  });

  it('a refusal of its first, certain send makes it OPEN again with the reason', async () => {
    const { pix, run, read } = await refunding('8.00');
    psp.failNext(`PUT /api/v2/pix/${pix.endToEndId}/devolucao/`, 422, 'Devolucao nao permitida');
    await run();
    expect(await read()).toMatchObject({ status: 'OPEN', failedReason: 'Devolução refused by the PSP: Devolucao nao permitida' });
    await t.assertLedger();
  });
});
