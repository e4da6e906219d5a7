import { randomBytes } from 'node:crypto';
import client from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatCents, newEndToEndId } from '../../src/pix/index.js';
import type { ApiPixProvider } from '../../src/providers/api-pix/api-pix.provider.js';
import { FIRST_LOOKBACK_MS, MAX_LOOKBACK_MS, OVERLAP_MS, reconcileReceived } from '../../src/providers/api-pix/api-pix-reconcile.tasks.js';
import { createRuntime } from '../../src/composition.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { balance, check, events, expectError, type Merchant } from '../charges/support.js';
import { startFakePsp, type FakePsp } from './fake-psp.js';

let psp: FakePsp;
let t: TestContext;
beforeAll(async () => {
  psp = await startFakePsp();
  t = await createTestContext(psp.env);
  // The worker's first sweep (at start, 24 h back) is done before any test looks at sweeps.
  await eventually(async () => (await t.pool.query('SELECT 1 FROM psp_reconcile_progress')).rowCount === 1, 50_000, 100);
});
afterEach(() => psp.assertConformance());
afterAll(async () => {
  await t?.close();
  await psp?.close();
});

const token = () => psp.env.API_PIX_WEBHOOK_TOKEN!;
const notify = (pix: unknown[]) => t.request('POST', '/providers/api-pix/webhook/pix', { headers: { 'x-webhook-token': token() }, body: { pix } });
const api = () => (t.rt.provider as ApiPixProvider).client;
const sweep = (now = new Date()) => reconcileReceived(t.rt, api(), now);
const hint = (txid: string | undefined, valor: string, endToEndId = newEndToEndId('87654321', new Date())) =>
  ({ endToEndId, ...(txid ? { txid } : {}), valor, horario: new Date().toISOString() });

async function charge(m: Merchant, amount: number) {
  const res = await t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount } });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; txid: string };
}

async function unconfirmed(reason: string): Promise<number> {
  const metric = await client.register.getSingleMetric('pixgate_psp_unconfirmed_notifications_total')!.get();
  return metric.values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

const unmatchedOf = async (endToEndId: string) =>
  (await t.pool.query('SELECT amount, status, txid FROM unmatched_payments WHERE end2end_id = $1', [endToEndId])).rows[0];

describe('a notification is a hint: the PSP confirms it', () => {
  it('a forged notification (right token, a PIX the PSP does not know) credits nothing and is counted', async () => {
    const m = await t.merchant();
    const c = await charge(m, 1000);
    const before = await unconfirmed('not_found');
    const res = await notify([hint(c.txid, '10.00'), hint(c.txid, '10.00')]);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ received: 0 });
    expect(await unconfirmed('not_found')).toBe(before + 2);
    expect((await check(t, m, c.id)).status).toBe('PENDING');
    expect(await balance(t, m)).toMatchObject({ available: 0 });
    expect(psp.seen.filter((s) => s.method === 'GET' && s.path.startsWith('/api/v2/pix/')).length).toBeGreaterThanOrEqual(2);
    await t.assertLedger();
  });

  it('a PSP that cannot answer confirms nothing: nothing changes, counted as error, and the sweep credits it later', async () => {
    const m = await t.merchant();
    const c = await charge(m, 1500);
    const pix = psp.receive({ txid: c.txid, valor: '15.00' });
    const before = await unconfirmed('error');
    psp.failNext(`GET /api/v2/pix/${pix.endToEndId}`, 503);
    const res = await notify([pix]);
    expect(res.body.data).toEqual({ received: 0 });
    expect(await unconfirmed('error')).toBe(before + 1);
    expect((await check(t, m, c.id)).status).toBe('PENDING');
    await sweep();
    expect((await check(t, m, c.id)).status).toBe('PAID');
    await t.assertLedger();
  });

  it('a PSP answer for another PIX than the one asked about is a mismatch: nothing changes', async () => {
    const m = await t.merchant();
    const c = await charge(m, 1100);
    const real = psp.receive({ txid: c.txid, valor: '11.00' });
    const asked = newEndToEndId('87654321', new Date());
    psp.received.set(asked, real); // the PSP's record under another id
    const before = await unconfirmed('mismatch');
    expect((await notify([{ ...real, endToEndId: asked }])).body.data).toEqual({ received: 0 });
    expect(await unconfirmed('mismatch')).toBe(before + 1);
    expect((await check(t, m, c.id)).status).toBe('PENDING');
    psp.received.delete(asked);
    await t.assertLedger();
  });

  it('an inflated valor in the notification is ignored: the PSP\'s (correct) amount pays the charge', async () => {
    const m = await t.merchant();
    const c = await charge(m, 2500);
    const pix = psp.receive({ txid: c.txid, valor: '25.00' });
    const res = await notify([{ ...pix, valor: '9999.00' }]);
    expect(res.body.data).toEqual({ received: 1 });
    const paid = await check(t, m, c.id);
    expect(paid).toMatchObject({ status: 'PAID', amount: 2500, end2endId: pix.endToEndId, paidAt: new Date(pix.horario).toISOString() });
    expect(await balance(t, m)).toMatchObject({ available: 2500 });
    expect(await unmatchedOf(pix.endToEndId)).toBeUndefined();
    await t.assertLedger();
  });

  it('a notification claiming the charge\'s amount for a PIX of another amount: the PSP\'s amount rules, so it is unmatched', async () => {
    const m = await t.merchant();
    const c = await charge(m, 2500);
    const pix = psp.receive({ txid: c.txid, valor: '2.50' });
    expect((await notify([{ ...pix, valor: '25.00' }])).body.data).toEqual({ received: 1 });
    expect((await check(t, m, c.id)).status).toBe('PENDING');
    expect(await unmatchedOf(pix.endToEndId)).toEqual({ amount: 250, status: 'OPEN', txid: c.txid });
    expect(await balance(t, m)).toMatchObject({ available: 0 });
    await t.assertLedger();
  });

  it('a txid the notification swaps is ignored: the PSP\'s txid decides which charge is paid', async () => {
    const m = await t.merchant();
    const [a, b] = [await charge(m, 1000), await charge(m, 1000)];
    const pix = psp.receive({ txid: a.txid, valor: '10.00' });
    await notify([{ ...pix, txid: b.txid }]);
    expect((await check(t, m, a.id)).status).toBe('PAID');
    expect((await check(t, m, b.id)).status).toBe('PENDING');
    await t.assertLedger();
  });

  it('a devolução the notification calls DEVOLVIDO while the PSP still processes it settles nothing', async () => {
    const m = await t.merchant();
    const c = await charge(m, 4000);
    const pix = psp.receive({ txid: c.txid, valor: '40.00' });
    await notify([pix]);
    const refund = await t.request('POST', `/transparents/refund?id=${c.id}`, { key: m.key });
    expect(refund.status).toBe(200);
    const id = (refund.body.data.refund.id as string).replace('_', '');
    const devolucao = (await eventually(() => psp.devolucoes.get(`${pix.endToEndId}/${id}`)))!;
    const res = await notify([{ ...pix, devolucoes: [{ ...devolucao, status: 'DEVOLVIDO' }] }]);
    expect(res.body.data).toEqual({ received: 1 });
    expect((await check(t, m, c.id)).refund.status).toBe('PENDING');
    expect(psp.seen.some((s) => s.method === 'GET' && s.path === `/api/v2/pix/${pix.endToEndId}/devolucao/${id}`)).toBe(true);
    devolucao.status = 'DEVOLVIDO';
    await notify([{ ...pix, devolucoes: [devolucao] }]);
    await eventually(async () => (await check(t, m, c.id)).refund.status === 'COMPLETED');
    expect(await events(t, m.id, 'REFUND_COMPLETED')).toHaveLength(1);
    await t.assertLedger();
  });
});

describe('reconciliation sweep', () => {
  it('credits a PIX whose notification never came, with the PSP\'s horario as paidAt', async () => {
    const m = await t.merchant({ chargeFeeFixed: 10 });
    const c = await charge(m, 3000);
    const horario = new Date(Date.now() - 20_000);
    const pix = psp.receive({ txid: c.txid, valor: '30.00', horario });
    const report = await sweep();
    expect(report.recorded).toBeGreaterThanOrEqual(1);
    expect(await check(t, m, c.id)).toMatchObject({ status: 'PAID', paidAt: horario.toISOString(), end2endId: pix.endToEndId });
    expect(await balance(t, m)).toMatchObject({ available: 2990 });
    await t.assertLedger();
  });

  it('a notification delivered twice and the sweep, all at once, credit once', async () => {
    const m = await t.merchant();
    const c = await charge(m, 1200);
    const pix = psp.receive({ txid: c.txid, valor: '12.00' });
    const answers = await Promise.all([notify([pix]), notify([pix, pix]), sweep(), sweep()]);
    expect(answers.slice(0, 2).map((a: any) => a.status)).toEqual([200, 200]);
    expect(await events(t, m.id, 'CHARGE_PAID')).toHaveLength(1);
    expect(await balance(t, m)).toMatchObject({ available: 1200 });
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM ledger_transactions WHERE reference = $1`, [c.id]);
    expect(rows[0].n).toBe(1);
    expect(await unmatchedOf(pix.endToEndId)).toBeUndefined();
    // The same PIX once more, later: still one credit.
    await Promise.all([sweep(), notify([pix])]);
    expect(await balance(t, m)).toMatchObject({ available: 1200 });
    await t.assertLedger();
  });

  it('reads every page of GET /pix', async () => {
    const m = await t.merchant();
    const c = await charge(m, 777);
    const start = new Date();
    const strays = Array.from({ length: 130 }, () => psp.receive({ valor: '0.01', horario: start }));
    const last = psp.receive({ txid: c.txid, valor: '7.77', horario: new Date(start.getTime() + 1) });
    const seenBefore = psp.seen.length;
    await sweep(new Date(start.getTime() + 1000));
    const pages = psp.seen.slice(seenBefore).filter((s) => s.method === 'GET' && s.path === '/api/v2/pix').map((s) => s.query['paginacao.paginaAtual']);
    expect(pages).toContain('1');
    expect((await check(t, m, c.id)).status).toBe('PAID');
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM unmatched_payments WHERE end2end_id = ANY($1)', [strays.map((s) => s.endToEndId)]);
    expect(rows[0].n).toBe(130);
    expect(last.endToEndId).toBe((await check(t, m, c.id)).end2endId);
    await t.assertLedger();
  });

  it('resumes after a restart from the stored window, windows overlapping by 60 s, at most 7 days back, 24 h on a first run', async () => {
    const windowsOf = async (rt: typeof t.rt, now: Date) => {
      const from = psp.seen.length;
      await reconcileReceived(rt, (rt.provider as ApiPixProvider).client, now);
      return psp.seen.slice(from).filter((s) => s.path === '/api/v2/pix' && s.query['paginacao.paginaAtual'] === '0')
        .map((s) => ({ inicio: Date.parse(s.query.inicio!), fim: Date.parse(s.query.fim!) }));
    };
    const now = new Date();
    const stored = new Date(now.getTime() - 3 * 3600_000 - 5000);
    await t.pool.query('UPDATE psp_reconcile_progress SET covered_until = $1', [stored]);
    // A restart: a new runtime over the same database knows only what the database stored.
    const restarted = createRuntime(t.rt.config, t.pool);
    const windows = await windowsOf(restarted, now);
    expect(windows[0]!.inicio).toBe(stored.getTime() - OVERLAP_MS);
    expect(windows.at(-1)!.fim).toBe(now.getTime());
    for (let i = 1; i < windows.length; i++) expect(windows[i]!.inicio).toBeLessThanOrEqual(windows[i - 1]!.fim - OVERLAP_MS);
    const { rows } = await t.pool.query('SELECT covered_until FROM psp_reconcile_progress');
    expect(rows[0].covered_until.getTime()).toBe(now.getTime());

    await t.pool.query(`UPDATE psp_reconcile_progress SET covered_until = now() - interval '30 days'`);
    const later = new Date();
    expect((await windowsOf(restarted, later))[0]!.inicio).toBe(later.getTime() - MAX_LOOKBACK_MS);

    await t.pool.query('DELETE FROM psp_reconcile_progress');
    const first = new Date();
    expect((await windowsOf(restarted, first))[0]!.inicio).toBe(first.getTime() - FIRST_LOOKBACK_MS);
    // Progress never moves back: an older sweep finishing late leaves the newer end.
    await reconcileReceived(restarted, api(), new Date(first.getTime() - 10_000));
    expect((await t.pool.query('SELECT covered_until FROM psp_reconcile_progress')).rows[0].covered_until.getTime()).toBe(first.getTime());
    await t.assertLedger();
  });
});

describe('the sweep as a periodic job', () => {
  it('runs every API_PIX_RECONCILE_INTERVAL_S by itself and credits what no notification brought', async () => {
    // A PSP of its own: the first sweep of a new database lists the last 24 h, and this one received nothing else.
    const own = await startFakePsp({ env: { API_PIX_RECONCILE_INTERVAL_S: '1' } });
    const t2 = await createTestContext(own.env);
    try {
      const m = await t2.merchant();
      const created = await t2.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 640 } });
      own.receive({ txid: created.body.data.txid, valor: formatCents(640) });
      await eventually(async () => (await check(t2, m, created.body.data.id)).status === 'PAID', 30_000, 200);
      await t2.assertLedger();
    } finally {
      await t2.close();
      await own.close();
    }
  }, 90_000);
});

describe('webhook token', () => {
  it('a 256-character token works in the path; the 100-character limit stays on other routes', async () => {
    const long = randomBytes(192).toString('base64url').slice(0, 256);
    expect(long).toHaveLength(256);
    const t3 = await createTestContext({ ...psp.env, API_PIX_WEBHOOK_TOKEN: long }, { worker: false });
    try {
      const m = await t3.merchant();
      const c = (await t3.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 990 } })).body.data;
      const pix = psp.receive({ txid: c.txid, valor: '9.90' });
      const res = await t3.request('POST', `/providers/api-pix/webhook/${long}/pix`, { body: { pix: [pix] } });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ received: 1 });
      expect((await check(t3, m, c.id)).status).toBe('PAID');
      expectError(await t3.request('POST', `/providers/api-pix/webhook/${long}x/pix`, { body: { pix: [pix] } }), 401, 'UNAUTHORIZED');
      expectError(await t3.request('POST', `/providers/api-pix/webhook/${long}/other`, { body: { pix: [pix] } }), 404, 'NOT_FOUND');
      expectError(await t3.request('GET', `/customers/${'c'.repeat(101)}`, { key: m.key }), 400, 'VALIDATION_ERROR', 'path: a parameter is too long');
      await t3.assertLedger();
    } finally {
      await t3.close();
    }
  });
});
