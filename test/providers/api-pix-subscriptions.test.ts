// docs/contract/subscriptions.md#at-the-provider: subscriptions through a PSP speaking BACEN's API Pix 2.9.0 — locrec,
// rec, solicrec, cobr and retries — with the PSP's webhookrec/webhookcobr notifications taken as hints confirmed by a
// GET, and a sweep for what no notification brought. Every request and answer is checked against BACEN's document.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/calendar/index.js';
import { parseBrCode } from '../../src/pix/index.js';
import { cycleDueDate } from '../../src/subscriptions/cycle.rules.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { balance, events, expectError, validTaxId, type Merchant } from '../charges/support.js';
import { cycleCharges, getSub, inDays, payer, subscribe } from '../subscriptions/support.js';
import { startFakePsp, type FakePsp } from './fake-psp.js';

let psp: FakePsp;
let t: TestContext;
let m: Merchant;
let customerId: string;
const taxId = validTaxId();

beforeAll(async () => {
  psp = await startFakePsp({ env: { API_PIX_RECONCILE_INTERVAL_S: '3600' } });
  t = await createTestContext(psp.env);
  m = await t.merchant();
  customerId = await payer(t, m, taxId);
});
afterEach(() => psp.assertConformance());
afterAll(async () => {
  await t?.close();
  await psp?.close();
});

const token = () => psp.env.API_PIX_WEBHOOK_TOKEN!;
const notifyRec = (idRec: string) => t.request('POST', `/providers/api-pix/webhook/${token()}/rec`, { body: { recs: [{ idRec, status: 'APROVADA' }] } });
const notifyCobr = (txid: string, idRec: string) =>
  t.request('POST', '/providers/api-pix/webhook/cobr', { headers: { 'x-webhook-token': token() }, body: { cobsr: [{ idRec, txid, status: 'ATIVA' }] } });
const seen = (method: string, prefix: string) => psp.seen.filter((s) => s.method === method && s.path.startsWith(`/api/v2${prefix}`));
const idRecOf = async (id: string) => (await t.pool.query<{ provider_ref: string }>('SELECT provider_ref FROM subscriptions WHERE id = $1', [id])).rows[0]!.provider_ref;

/** An ACTIVE fixed-amount subscription: created at the PSP, approved by the payer there, told by webhookrec. */
async function active(over: Record<string, unknown> = {}) {
  const s = await subscribe(t, m, customerId, { startDate: inDays(2), frequency: 'WEEKLY', ...over });
  const idRec = await idRecOf(s.id);
  psp.approveRec(idRec);
  expect((await notifyRec(idRec)).body.data).toEqual({ received: 1 });
  expect((await getSub(t, m, s.id)).status).toBe('ACTIVE');
  return { s, idRec };
}

describe('creating a subscription at the PSP', () => {
  it('journey 2: POST /locrec, then POST /rec with its loc; the code carries the PSP\'s location in template 80', async () => {
    const s = await subscribe(t, m, customerId, { endDate: inDays(300), retryPolicy: 'THREE_IN_7_DAYS', description: 'Streaming' });
    const [loc] = seen('POST', '/locrec').slice(-1);
    const [rec] = seen('POST', '/rec').slice(-1);
    const location = [...psp.locrecs.values()].at(-1)!;
    expect(rec!.body).toEqual({
      vinculo: { contrato: 'Plano mensal 123', objeto: 'Streaming', devedor: { cpf: taxId, nome: 'Maria Pagadora' } },
      calendario: { dataInicial: s.startDate, dataFinal: inDays(300), periodicidade: 'MENSAL' },
      valor: { valorRec: '29.90' }, politicaRetentativa: 'PERMITE_3R_7D', loc: location.id,
    });
    expect(loc).toBeDefined();
    const template = parseBrCode(s.brCode).fields.find((f) => f.id === '80')!.value;
    expect(template).toContain(location.location);
    expect(await idRecOf(s.id)).toBe(location.idRec);
  });

  it('journey 3: the first charge\'s PUT /cob, then POST /rec with ativacao.dadosJornada.txid; the composite code is the cob\'s with 80', async () => {
    const s = await subscribe(t, m, customerId, { journey: 'QR_WITH_PAYMENT', firstPayment: { amount: 4_990 } });
    const [rec] = seen('POST', '/rec').slice(-1);
    expect(rec!.body.ativacao).toEqual({ dadosJornada: { txid: s.firstCharge.txid } });
    expect(s.brCode.startsWith(s.firstCharge.brCode.slice(0, -8))).toBe(true);
    expect(parseBrCode(s.brCode).fields.find((f) => f.id === '80')).toBeDefined();
    // The payer pays the composite code: the PIX arrives as every PIX does, and activates the subscription.
    const pix = psp.receive({ txid: s.firstCharge.txid, valor: '49.90' });
    expect((await t.request('POST', '/providers/api-pix/webhook/pix', { headers: { 'x-webhook-token': token() }, body: { pix: [pix] } })).status).toBe(200);
    await eventually(async () => (await getSub(t, m, s.id)).status === 'ACTIVE', 10_000);
  });

  it('journey 1: POST /rec, then POST /solicrec to the payer\'s account, expiring with the request', async () => {
    const s = await subscribe(t, m, customerId, { journey: 'PUSH', payerAccount: { ispb: '12345678', branch: '1', account: '998877' }, requestExpiresIn: 7200 });
    const [solic] = seen('POST', '/solicrec').slice(-1);
    expect(solic!.body).toMatchObject({
      idRec: await idRecOf(s.id), destinatario: { ispbParticipante: '12345678', agencia: '1', conta: '998877', cpf: taxId },
    });
    expect(Math.abs(Date.parse(solic!.body.calendario.dataExpiracaoSolicitacao) - (Date.parse(s.createdAt) + 7_200_000))).toBeLessThan(2_000);
    expect(s.brCode).toBeNull();
  });

  it('a PSP that fails answers 502 and nothing is created', async () => {
    psp.failNext('POST /api/v2/rec', 503);
    expectError(await t.request('POST', '/subscriptions', { key: m.key, body: { customerId, amount: 1000, frequency: 'MONTHLY', startDate: inDays(3), contract: 'x', journey: 'QR' } }),
      502, 'PROVIDER_ERROR', 'The PIX provider could not register the recurrence; nothing was created');
  });
});

describe('the PSP\'s word on recurrences: hints confirmed by GET /rec/{idRec}', () => {
  it('an approval notified is confirmed, then applied: ACTIVE with SUBSCRIPTION_AUTHORIZED; a rejection: REJECTED', async () => {
    await active();
    const s = await subscribe(t, m, customerId);
    const idRec = await idRecOf(s.id);
    psp.rejectRec(idRec);
    expect((await notifyRec(idRec)).body.data).toEqual({ received: 1 });
    expect((await getSub(t, m, s.id))).toMatchObject({ status: 'REJECTED', endedBy: 'PAYER' });
    expect(seen('GET', `/rec/${idRec}`).length).toBeGreaterThanOrEqual(1);
  });

  it('a notification the PSP does not confirm changes nothing (the notification\'s status is never believed)', async () => {
    const s = await subscribe(t, m, customerId);
    const idRec = await idRecOf(s.id);
    expect((await notifyRec(idRec)).body.data).toEqual({ received: 1 }); // still CRIADA at the PSP
    expect((await getSub(t, m, s.id)).status).toBe('CREATED');
    expect((await notifyRec('RN1234567820240101abcdefghijk')).body.data).toEqual({ received: 0 }); // unknown to the PSP
    expect((await t.request('POST', '/providers/api-pix/webhook/rec', { body: { recs: [{ idRec }] } })).status).toBe(401);
  });

  it('the sweep finds an approval no notification brought', async () => {
    const s = await subscribe(t, m, customerId);
    psp.approveRec(await idRecOf(s.id));
    const { sweepRecurrences } = await import('../../src/providers/api-pix/api-pix-recurrence.service.js');
    await sweepRecurrences(t.rt, (t.rt.provider as unknown as { client: never }).client);
    expect((await getSub(t, m, s.id)).status).toBe('ACTIVE');
  });

  it('the payer cancels at their bank: CANCELLED by the payer once confirmed', async () => {
    const { s, idRec } = await active();
    psp.cancelRecByPayer(idRec);
    await notifyRec(idRec);
    expect(await getSub(t, m, s.id)).toMatchObject({ status: 'CANCELLED', endedBy: 'PAYER' });
  });
});

describe('cycles: PUT /cobr/{txid} into the platform\'s account, debits told by webhookcobr', () => {
  it('each cycle is a cobr under the cycle\'s txid, received in the account API_PIX_RECEIVER_* names', async () => {
    const { s, idRec } = await active({ retryPolicy: 'THREE_IN_7_DAYS' });
    const charges = await eventually(async () => { const c = await cycleCharges(t, m, s.id); if (c.length !== 2) throw new Error('not yet'); return c; }, 10_000);
    for (const c of charges) {
      const [put] = seen('PUT', `/cobr/${c.txid}`);
      expect(put!.body).toEqual({
        idRec, infoAdicional: 'Streaming', calendario: { dataDeVencimento: c.dueDate }, valor: { original: '29.90' }, ajusteDiaUtil: true,
        recebedor: { agencia: '0001', conta: '7654321', tipoConta: 'CORRENTE' },
      });
    }
    expect(charges.map((c) => c.dueDate).sort()).toEqual([0, 1].map((n) => cycleDueDate(inDays(2), 'WEEKLY', n)));
  });

  it('paid: the PIX the PSP confirms is credited once, by the notification or the PIX webhook alike', async () => {
    const { s, idRec } = await active();
    const [charge] = (await eventually(async () => { const c = await cycleCharges(t, m, s.id); if (c.length !== 2) throw new Error('not yet'); return c; }, 10_000)).slice(-1);
    const before = await balance(t, m);
    const attempt = psp.debitCobr(charge!.txid, 'PAGA');
    expect((await notifyCobr(charge!.txid, idRec)).body.data).toEqual({ received: 1 });
    const [paid] = (await cycleCharges(t, m, s.id)).filter((c) => c.id === charge!.id);
    expect(paid).toMatchObject({ status: 'PAID', end2endId: attempt.endToEndId });
    expect(paid!.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['PAID']);
    // The same PIX again, through the other webhook: nothing more.
    const pix = psp.received.get(attempt.endToEndId)!;
    await t.request('POST', '/providers/api-pix/webhook/pix', { headers: { 'x-webhook-token': token() }, body: { pix: [pix] } });
    await notifyCobr(charge!.txid, idRec);
    expect((await balance(t, m)).available - before.available).toBe(paid!.netAmount);
    expect((await events(t, m.id, 'CHARGE_PAID')).filter((e) => e.data.id === charge!.id)).toHaveLength(1);
    await t.assertLedger();
  });

  it('a rejected attempt is recorded (BACEN\'s code as outcome) and, under THREE_IN_7_DAYS, a retry asked the next day', async () => {
    const { s, idRec } = await active({ retryPolicy: 'THREE_IN_7_DAYS' });
    const [charge] = (await eventually(async () => { const c = await cycleCharges(t, m, s.id); if (c.length !== 2) throw new Error('not yet'); return c; }, 10_000)).slice(-1);
    psp.debitCobr(charge!.txid, 'AM02');
    await notifyCobr(charge!.txid, idRec);
    const [after] = (await cycleCharges(t, m, s.id)).filter((c) => c.id === charge!.id);
    expect(after).toMatchObject({ status: 'PENDING', failedReason: null });
    expect(after!.attempts).toEqual([{ date: charge!.dueDate, outcome: 'AM02', end2endId: expect.any(String) }]);
    const retry = `/cobr/${charge!.txid}/retentativa/`;
    await eventually(() => seen('POST', retry).length === 1, 10_000);
    expect(seen('POST', retry)[0]!.path.endsWith(addDays(charge!.dueDate, 1))).toBe(true);
    // The PSP's same word twice records one attempt.
    await notifyCobr(charge!.txid, idRec);
    expect((await cycleCharges(t, m, s.id)).find((c) => c.id === charge!.id)!.attempts).toHaveLength(1);
  });

  it('a failed attempt and the paid retry learned from one answer (no notification between): both listed, the failure first', async () => {
    const { s, idRec } = await active({ retryPolicy: 'THREE_IN_7_DAYS' });
    const [charge] = (await eventually(async () => { const c = await cycleCharges(t, m, s.id); if (c.length !== 2) throw new Error('not yet'); return c; }, 10_000)).slice(-1);
    psp.debitCobr(charge!.txid, 'AM02');
    const paid = psp.debitCobr(charge!.txid, 'PAGA');
    await notifyCobr(charge!.txid, idRec);
    const after = (await cycleCharges(t, m, s.id)).find((c) => c.id === charge!.id)!;
    expect(after.status).toBe('PAID');
    expect(after.attempts.map((a: { outcome: string; end2endId: string }) => [a.outcome, a.end2endId === paid.endToEndId]))
      .toEqual([['AM02', false], ['PAID', true]]);
    expect((await events(t, m.id, 'SUBSCRIPTION_CHARGE_FAILED')).filter((e) => e.data.id === charge!.id)).toHaveLength(1);
    await t.assertLedger();
  });

  it('NONE: a rejected attempt ends the charge; the PSP\'s own final word (EXPIRADA) ends one that never failed', async () => {
    const { s, idRec } = await active();
    const charges = await eventually(async () => { const c = await cycleCharges(t, m, s.id); if (c.length !== 2) throw new Error('not yet'); return c; }, 10_000);
    psp.debitCobr(charges[1]!.txid, 'AM02');
    await notifyCobr(charges[1]!.txid, idRec);
    expect((await cycleCharges(t, m, s.id)).find((c) => c.id === charges[1]!.id)).toMatchObject({ status: 'EXPIRED', failedReason: 'AM02' });
    psp.expireCobr(charges[0]!.txid);
    await notifyCobr(charges[0]!.txid, idRec);
    expect((await cycleCharges(t, m, s.id)).find((c) => c.id === charges[0]!.id)).toMatchObject({ status: 'EXPIRED', failedReason: 'NO_DEBIT' });
  });

  it('a variable amount: the merchant\'s cycle charge is a cobr for its amount; the rec carries valorMinimoRecebedor', async () => {
    const { s, idRec } = await active({ amount: undefined, minAmount: 1_000 });
    expect(psp.recs.get(idRec).valor).toEqual({ valorMinimoRecebedor: '10.00' });
    const dueDate = cycleDueDate(inDays(2), 'WEEKLY', 1);
    const res = await t.request('POST', `/subscriptions/${s.id}/charges`, { key: m.key, body: { amount: 4_321, dueDate } });
    expect(res.status).toBe(201);
    expect(seen('PUT', `/cobr/${res.body.data.txid}`)[0]!.body).toMatchObject({ idRec, calendario: { dataDeVencimento: dueDate }, valor: { original: '43.21' } });
  });

  it('cancelling cancels the unpaid cobrs and the rec at the PSP (after the commit)', async () => {
    const { s, idRec } = await active();
    const charges = await eventually(async () => { const c = await cycleCharges(t, m, s.id); if (c.length !== 2) throw new Error('not yet'); return c; }, 10_000);
    expect((await t.request('POST', `/subscriptions/${s.id}/cancel`, { key: m.key })).status).toBe(200);
    await eventually(() => psp.recs.get(idRec).status === 'CANCELADA', 10_000);
    for (const c of charges) {
      expect(seen('PATCH', `/cobr/${c.txid}`).map((x) => x.body)).toEqual([{ status: 'CANCELADA' }]);
      expect(psp.cobrs.get(c.txid).status).toBe('CANCELADA');
    }
    expect(seen('PATCH', `/rec/${idRec}`).map((x) => x.body)).toEqual([{ status: 'CANCELADA' }]);
    // Told by webhookrec afterwards, the PSP's CANCELADA changes nothing more.
    await notifyRec(idRec);
    expect((await getSub(t, m, s.id)).endedBy).toBe('MERCHANT');
  });
});
