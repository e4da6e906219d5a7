import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { enqueue } from '../../src/platform/jobs.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { balance, check, expectError, type Merchant } from '../charges/support.js';
import { startFakePsp, type FakePsp } from './fake-psp.js';

let psp: FakePsp;
let t: TestContext;
beforeAll(async () => {
  // Polling waits a minute, so what settles a devolução in a test is the route the test drives.
  psp = await startFakePsp({ env: { API_PIX_POLL_INTERVAL_MS: '60000' } });
  t = await createTestContext(psp.env);
});
afterEach(() => psp.assertConformance());
afterAll(async () => {
  await t?.close();
  await psp?.close();
});

const UNMATCHED_KEYS = ['amount', 'end2endId', 'failedReason', 'id', 'payer', 'receivedAt', 'status', 'txid'];
const notify = (pix: unknown[]) =>
  t.request('POST', '/providers/api-pix/webhook/pix', { headers: { 'x-webhook-token': psp.env.API_PIX_WEBHOOK_TOKEN! }, body: { pix } });

async function charge(m: Merchant, amount: number) {
  const res = await t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount } });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; txid: string };
}

const listed = async (query = '') => {
  const res = await t.admin('GET', `/admin/unmatched-payments${query}`);
  expect(res.status).toBe(200);
  return res.body;
};
const find = async (id: string) => ((await listed('?limit=100')).data as any[]).find((u) => u.id === id);

/** A PIX received at the PSP and notified; answers its unmatched record. */
async function unmatched(fields: { txid?: string; valor: string; pagador?: { nome?: string; cpf?: string } }) {
  const pix = psp.receive(fields);
  expect((await notify([pix])).body.data).toEqual({ received: 1 });
  const u = ((await listed('?limit=100')).data as any[]).find((x) => x.end2endId === pix.endToEndId);
  expect(u).toBeDefined();
  return { pix, u };
}

/**
 * The poll job of a devolução, due now instead of in a minute, until `done`. Queued again on each try: the
 * adapter schedules its own poll (a minute later, under the same job key) right after the PSP answers.
 */
const pollUntil = (devolucaoId: string, done: () => Promise<boolean>) =>
  eventually(async () => {
    await enqueue(t.pool, 'api-pix:unmatched-refund:poll', { id: devolucaoId, attempt: 0 }, { jobKey: `api-pix:unmatched-refund:poll:${devolucaoId}` });
    return done();
  }, 20_000, 250);

const unmatchedFunds = async () =>
  (await t.pool.query(`SELECT coalesce(sum(amount), 0)::bigint AS s FROM ledger_entries WHERE account_id = 'platform:unmatched_funds'`)).rows[0].s as number;

describe('unmatched payments: every kind is recorded and listed', () => {
  it('no txid, an unknown txid, another amount, a second PIX to a paid charge', async () => {
    const m = await t.merchant();
    const c = await charge(m, 1000);
    const paid = await charge(m, 2000);
    const first = psp.receive({ txid: paid.txid, valor: '20.00' });
    await notify([first]);
    expect((await check(t, m, paid.id)).status).toBe('PAID');

    const noTxid = await unmatched({ valor: '5.00', pagador: { nome: 'Joana', cpf: '12345678909' } });
    const unknown = await unmatched({ txid: 'Z'.repeat(30), valor: '6.00' });
    const otherAmount = await unmatched({ txid: c.txid, valor: '10.01' });
    const second = await unmatched({ txid: paid.txid, valor: '20.00' });

    expect(Object.keys(noTxid.u).sort()).toEqual(UNMATCHED_KEYS);
    expect(noTxid.u).toMatchObject({ txid: null, amount: 500, status: 'OPEN', failedReason: null, payer: { name: 'Joana', taxId: '12345678909' } });
    expect(noTxid.u.id).toMatch(/^unp_[A-Za-z0-9]{22}$/);
    expect(noTxid.u.receivedAt).toBe(new Date(noTxid.pix.horario).toISOString());
    expect(unknown.u).toMatchObject({ txid: 'Z'.repeat(30), amount: 600, payer: null });
    expect(otherAmount.u).toMatchObject({ txid: c.txid, amount: 1001 });
    expect(second.u).toMatchObject({ txid: paid.txid, amount: 2000, end2endId: second.pix.endToEndId });
    // Nothing reached the merchant; the charges are as they were.
    expect((await check(t, m, c.id)).status).toBe('PENDING');
    expect((await check(t, m, paid.id)).end2endId).toBe(first.endToEndId);
    expect(await balance(t, m)).toMatchObject({ available: 2000 });
    // Delivered again, nothing new.
    await notify([noTxid.pix, second.pix]);
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM unmatched_payments WHERE end2end_id = ANY($1)',
      [[noTxid.pix, unknown.pix, otherAmount.pix, second.pix].map((p) => p.endToEndId)]);
    expect(rows[0].n).toBe(4);
    await t.assertLedger();
  });

  it('lists newest first with cursors, filters by status, validates its query, and is for the operator only', async () => {
    for (const valor of ['1.01', '1.02', '1.03']) await unmatched({ valor });
    const page1 = await listed('?limit=2');
    expect(page1.data).toHaveLength(2);
    expect(page1.pagination.hasMore).toBe(true);
    const page2 = await listed(`?limit=2&after=${encodeURIComponent(page1.pagination.next)}`);
    expect(page2.data[0].id).not.toBe(page1.data[1].id);
    const back = await listed(`?limit=2&before=${encodeURIComponent(page2.pagination.before)}`);
    expect(back.data.map((u: any) => u.id)).toEqual(page1.data.map((u: any) => u.id));
    expect((await listed('?status=REFUNDED')).data.every((u: any) => u.status === 'REFUNDED')).toBe(true);
    expectError(await t.admin('GET', '/admin/unmatched-payments?status=LOST'), 400, 'VALIDATION_ERROR', 'status: must be one of OPEN, REFUNDING, REFUNDED');
    expectError(await t.admin('GET', '/admin/unmatched-payments?limit=0'), 400, 'VALIDATION_ERROR');
    const filtered = await listed('?status=OPEN&limit=1');
    expectError(await t.admin('GET', `/admin/unmatched-payments?status=REFUNDED&after=${encodeURIComponent(filtered.pagination.next)}`),
      400, 'VALIDATION_ERROR', 'after: invalid cursor');
    const m = await t.merchant();
    expectError(await t.request('GET', '/admin/unmatched-payments', { key: m.key }), 401, 'UNAUTHORIZED');
    await t.assertLedger();
  });
});

describe('refunding an unmatched payment (a devolução of the whole PIX)', () => {
  it('REFUNDING at once, REFUNDED when the PSP reports DEVOLVIDO through a confirmed notification', async () => {
    const { pix, u } = await unmatched({ valor: '12.34' });
    const before = await unmatchedFunds();
    const res = await t.admin('POST', `/admin/unmatched-payments/${u.id}/refund`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: u.id, status: 'REFUNDING', failedReason: null, amount: 1234 });
    expect(await unmatchedFunds()).toBe(before - 1234);
    const devolucao = (await eventually(() => [...psp.devolucoes.entries()].find(([k]) => k.startsWith(`${pix.endToEndId}/`))?.[1]))!;
    expect(devolucao.id).toMatch(/^[A-Za-z0-9]{1,35}$/);
    expect(devolucao.valor).toBe('12.34');
    // The notification alone proves nothing: still processing at the PSP.
    await notify([{ ...pix, devolucoes: [{ ...devolucao, status: 'DEVOLVIDO' }] }]);
    expect((await find(u.id)).status).toBe('REFUNDING');
    devolucao.status = 'DEVOLVIDO';
    await notify([{ ...pix, devolucoes: [devolucao] }]);
    expect(await find(u.id)).toMatchObject({ status: 'REFUNDED', failedReason: null });
    expectError(await t.admin('POST', `/admin/unmatched-payments/${u.id}/refund`), 400, 'INVALID_STATE');
    await t.assertLedger();
  });

  it('NAO_REALIZADO (found by polling) makes it OPEN again with the PSP\'s reason; a new refund is a new devolução', async () => {
    const { pix, u } = await unmatched({ valor: '3.00' });
    expect((await t.admin('POST', `/admin/unmatched-payments/${u.id}/refund`)).body.data.status).toBe('REFUNDING');
    expectError(await t.admin('POST', `/admin/unmatched-payments/${u.id}/refund`), 400, 'INVALID_STATE',
      'Unmatched payment is REFUNDING; only an OPEN one can be refunded');
    const ofPix = () => [...psp.devolucoes.entries()].filter(([k]) => k.startsWith(`${pix.endToEndId}/`)).map(([, d]) => d);
    const [first] = (await eventually(() => ofPix().length === 1 && ofPix())) as ReturnType<typeof ofPix>;
    Object.assign(first!, { status: 'NAO_REALIZADO', motivo: 'Conta do pagador encerrada' });
    await pollUntil(first!.id, async () => (await find(u.id)).status === 'OPEN');
    expect(await find(u.id)).toMatchObject({ status: 'OPEN', failedReason: 'Conta do pagador encerrada' });
    await t.assertLedger();

    expect((await t.admin('POST', `/admin/unmatched-payments/${u.id}/refund`)).body.data).toMatchObject({ status: 'REFUNDING', failedReason: null });
    const second = ((await eventually(() => ofPix().length === 2 && ofPix())) as ReturnType<typeof ofPix>).find((d) => d.id !== first!.id)!;
    second.status = 'DEVOLVIDO';
    await pollUntil(second.id, async () => (await find(u.id)).status === 'REFUNDED');
    await t.assertLedger();
  });

  it('a devolução the PSP refuses outright leaves it OPEN with the reason', async () => {
    const { u } = await unmatched({ valor: '4.00' });
    psp.failNext('PUT /api/v2/pix/', 400, 'Devolucao nao permitida');
    await t.admin('POST', `/admin/unmatched-payments/${u.id}/refund`);
    await eventually(async () => (await find(u.id)).status === 'OPEN');
    expect((await find(u.id)).failedReason).toBe('Devolução refused by the PSP: Devolucao nao permitida');
    await t.assertLedger();
  });

  it('an unknown id is NOT_FOUND', async () => {
    expectError(await t.admin('POST', '/admin/unmatched-payments/unp_nothing/refund'), 404, 'NOT_FOUND');
  });
});
