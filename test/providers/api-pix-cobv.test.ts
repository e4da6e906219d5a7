// docs/contract/due-date-charges.md#api-pix: the api-pix adapter issues a due-date charge as BACEN's cobv
// (`PUT /cobv/{txid}` in its modalities, checked with every answer against BACEN's OpenAPI by the fake PSP)
// and credits the amount the PSP confirms, with the parts it reports in `componentesValor` (part 19's trust:
// a notification is only a hint, `GET /pix/{e2eid}` the word).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/calendar/index.js';
import { newEndToEndId } from '../../src/pix/index.js';
import type { ApiPixProvider } from '../../src/providers/api-pix/api-pix.provider.js';
import { reconcileReceived } from '../../src/providers/api-pix/api-pix-reconcile.tasks.js';
import { dueCharge, parts, payer, plainWednesday, today } from '../charges/due-date-support.js';
import { balance, check, events, expectError, type Merchant } from '../charges/support.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { startFakePsp, type FakePsp } from './fake-psp.js';

let psp: FakePsp;
let t: TestContext;
let D0: string;
beforeAll(async () => {
  psp = await startFakePsp();
  t = await createTestContext(psp.env);
  D0 = plainWednesday();
});
afterEach(() => psp.assertConformance());
afterAll(async () => {
  await t?.close();
  await psp?.close();
});

const notify = (pix: unknown[]) => t.request('POST', '/providers/api-pix/webhook/pix', { headers: { 'x-webhook-token': psp.env.API_PIX_WEBHOOK_TOKEN! }, body: { pix } });
const lastCobv = () => psp.seen.filter((s) => s.method === 'PUT' && s.path.startsWith('/api/v2/cobv/')).at(-1)!;
/** Noon in São Paulo (15:00Z) of a day: a PIX the PSP says arrived then. */
const noonOf = (day: string) => `${day}T15:00:00.000Z`;

async function customer(m: Merchant, taxId: string, name: string) {
  const res = await t.request('POST', '/customers', { key: m.key, body: { email: `${taxId}@example.com`, name, taxId } });
  expect(res.status, res.raw).toBe(201);
  return res.body.data.id as string;
}

describe('issuing: PUT /cobv/{txid}', () => {
  it('sends the calendar, the debtor, the valor in BACEN\'s modalities and the key; answers the PSP\'s copy-and-paste code', async () => {
    const m = await t.merchant();
    const key = (await t.admin('GET', `/admin/merchants/${m.id}`)).body.data.pixKey.key;
    const cust = await customer(m, '52998224725', 'Francisco da Silva');
    const c = await dueCharge(t, m, cust, {
      amount: 12_345, dueDate: D0, daysAfterDue: 10, description: 'Mensalidade',
      rebate: { mode: 'PERCENT', value: 150 }, fine: { mode: 'FIXED', value: 250 }, interest: { mode: 'PERCENT_PER_MONTH', value: 100 },
      discount: { mode: 'FIXED_UNTIL', tiers: [{ date: addDays(D0, -3), value: 500 }, { date: D0, value: 250 }] },
    });
    const sent = lastCobv();
    const txid = sent.path.slice('/api/v2/cobv/'.length);
    expect(txid).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(sent.body).toEqual({
      calendario: { dataDeVencimento: D0, validadeAposVencimento: 10 },
      devedor: { cpf: '52998224725', nome: 'Francisco da Silva' },
      valor: {
        original: '123.45',
        abatimento: { modalidade: 2, valorPerc: '1.50' },
        multa: { modalidade: 1, valorPerc: '2.50' },
        juros: { modalidade: 3, valorPerc: '1.00' },
        desconto: { modalidade: 1, descontoDataFixa: [{ data: addDays(D0, -3), valorPerc: '5.00' }, { data: D0, valorPerc: '2.50' }] },
      },
      chave: key,
      solicitacaoPagador: 'Mensalidade',
    });
    expect(c).toMatchObject({ txid, brCode: psp.cobs.get(txid).pixCopiaECola, status: 'PENDING', dueDate: D0 });
  });

  it('a company is a cnpj debtor; each per-day modality goes as BACEN\'s 3 and 5, the interest ones as 1–4', async () => {
    const m = await t.merchant();
    const cust = await customer(m, '11222333000181', 'Empresa de Serviços SA');
    await dueCharge(t, m, cust, { dueDate: D0, discount: { mode: 'AMOUNT_PER_DAY_EARLY', value: 50 }, interest: { mode: 'AMOUNT_PER_DAY', value: 10 } });
    expect(lastCobv().body).toMatchObject({
      devedor: { cnpj: '11222333000181', nome: 'Empresa de Serviços SA' }, calendario: { validadeAposVencimento: 30 },
      valor: { desconto: { modalidade: 3, valorPerc: '0.50' }, juros: { modalidade: 1, valorPerc: '0.10' } },
    });
    await dueCharge(t, m, cust, { dueDate: D0, discount: { mode: 'PERCENT_PER_DAY_EARLY', value: 7 }, interest: { mode: 'PERCENT_PER_YEAR', value: 1200 } });
    expect(lastCobv().body.valor).toMatchObject({ desconto: { modalidade: 5, valorPerc: '0.07' }, juros: { modalidade: 4, valorPerc: '12.00' } });
    await dueCharge(t, m, cust, { dueDate: D0, discount: { mode: 'PERCENT_UNTIL', tiers: [{ date: D0, value: 100 }] }, interest: { mode: 'PERCENT_PER_DAY', value: 3 } });
    expect(lastCobv().body.valor).toMatchObject({ desconto: { modalidade: 2, descontoDataFixa: [{ data: D0, valorPerc: '1.00' }] }, juros: { modalidade: 2 } });
  });

  it('a PSP that refuses is 502 PROVIDER_ERROR and nothing is written', async () => {
    const m = await t.merchant();
    const cust = await payer(t, m);
    psp.failNext('PUT /api/v2/cobv/', 400, 'CobVOperacaoInvalida');
    expectError(await t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1000, customerId: cust, dueDate: D0 } }),
      502, 'PROVIDER_ERROR', 'The PIX provider could not issue the charge; nothing was created');
    expect((await t.pool.query('SELECT count(*)::int AS n FROM charges WHERE merchant_id = $1', [m.id])).rows[0].n).toBe(0);
  });
});

describe('crediting what the PSP confirms', () => {
  it('credits the amount and the parts of componentesValor, the fee on that amount; once however often notified', async () => {
    const m = await t.merchant({ chargeFeeFixed: 30, chargeFeeBps: 199 });
    const c = await dueCharge(t, m, await payer(t, m), {
      dueDate: D0, rebate: { mode: 'FIXED', value: 1000 }, fine: { mode: 'PERCENT', value: 200 }, interest: { mode: 'PERCENT_PER_MONTH', value: 100 },
    });
    // paid a day late: 1000.00 − 10.00 + 20.00 + 0.33 = 1010.33, as the PSP reports it
    const pix = psp.receive({
      txid: c.txid, valor: '1010.33', horario: noonOf(addDays(D0, 1)),
      componentesValor: { original: { valor: '1000.00' }, abatimento: { valor: '10.00' }, multa: { valor: '20.00' }, juros: { valor: '0.33' } },
    });
    // The notification's amount is only a hint: the PSP's record is what counts.
    expect((await notify([{ ...pix, valor: '1.00', componentesValor: undefined }])).body.data).toEqual({ received: 1 });
    await notify([pix]);
    const paid = await check(t, m, c.id);
    // fee 30 + ⌊101033 × 0.0199⌋ = 30 + 2010 = 2040
    expect(paid).toMatchObject({
      status: 'PAID', amount: 100_000, paidAmount: 101_033, paidBreakdown: parts({ rebate: 1000, fine: 2000, interest: 33 }),
      fee: 2040, netAmount: 98_993, paidAt: noonOf(addDays(D0, 1)), end2endId: pix.endToEndId,
    });
    expect(await balance(t, m)).toEqual({ available: 98_993, pending: 0, blocked: 0 });
    expect(await events(t, m.id, 'CHARGE_PAID')).toHaveLength(1);
    await t.assertLedger();
  });

  it('without componentesValor: the parts of the day of payment, or of the earlier day whose amount it is (a local holiday)', async () => {
    const m = await t.merchant();
    const rules = { dueDate: D0, fine: { mode: 'FIXED', value: 500 }, interest: { mode: 'AMOUNT_PER_DAY', value: 10 }, discount: { mode: 'AMOUNT_PER_DAY_EARLY', value: 100 } };
    const cust = await payer(t, m);
    // On D0 + 2: 1000.00 + 5.00 + 0.20
    const onTime = await dueCharge(t, m, cust, rules);
    await notify([psp.receive({ txid: onTime.txid, valor: '1005.20', horario: noonOf(addDays(D0, 2)) })]);
    expect(await check(t, m, onTime.id)).toMatchObject({ paidAmount: 100_520, paidBreakdown: parts({ fine: 500, interest: 20 }) });
    // Paid on D0 + 1 at the amount of D0 (the payer's bank extended the due date for its city's holiday): no fine
    const extended = await dueCharge(t, m, cust, rules);
    await notify([psp.receive({ txid: extended.txid, valor: '1000.00', horario: noonOf(addDays(D0, 1)) })]);
    expect(await check(t, m, extended.id)).toMatchObject({ paidAmount: 100_000, paidBreakdown: parts({}) });
    // Paid on D0 − 2 at the amount of D0 − 3 (R$ 3,00 off): the parts of D0 − 3
    const early = await dueCharge(t, m, cust, rules);
    await notify([psp.receive({ txid: early.txid, valor: '997.00', horario: noonOf(addDays(D0, -2)) })]);
    expect(await check(t, m, early.id)).toMatchObject({ paidAmount: 99_700, paidBreakdown: parts({ discount: 300 }) });
    await t.assertLedger();
  });

  it('an amount no day explains is still credited (the money arrived), its difference shown as discount or interest', async () => {
    const m = await t.merchant();
    const cust = await payer(t, m);
    const less = await dueCharge(t, m, cust, { dueDate: D0 });
    await notify([psp.receive({ txid: less.txid, valor: '990.00', horario: noonOf(today()) })]);
    expect(await check(t, m, less.id)).toMatchObject({ status: 'PAID', paidAmount: 99_000, paidBreakdown: parts({ discount: 1000 }) });
    const more = await dueCharge(t, m, cust, { dueDate: D0 });
    await notify([psp.receive({ txid: more.txid, valor: '1000.01', horario: noonOf(today()) })]);
    expect(await check(t, m, more.id)).toMatchObject({ status: 'PAID', paidAmount: 100_001, paidBreakdown: parts({ interest: 1 }) });
    // Parts that do not add up to the amount are not believed
    const wrong = await dueCharge(t, m, cust, { dueDate: D0, fine: { mode: 'FIXED', value: 500 } });
    await notify([psp.receive({
      txid: wrong.txid, valor: '1005.00', horario: noonOf(addDays(D0, 1)), componentesValor: { original: { valor: '1000.00' }, multa: { valor: '9.00' } },
    })]);
    expect(await check(t, m, wrong.id)).toMatchObject({ paidAmount: 100_500, paidBreakdown: parts({ fine: 500 }) });
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM unmatched_payments WHERE txid = ANY($1)', [[less.txid, more.txid, wrong.txid]]);
    expect(rows[0].n).toBe(0);
    await t.assertLedger();
  });

  it('the reconciliation sweep credits a due-date PIX no notification brought, with its componentesValor', async () => {
    const m = await t.merchant();
    const c = await dueCharge(t, m, await payer(t, m), { dueDate: D0, rebate: { mode: 'FIXED', value: 2500 } });
    psp.receive({
      txid: c.txid, valor: '975.00', endToEndId: newEndToEndId('87654321', new Date()),
      componentesValor: { original: { valor: '1000.00' }, abatimento: { valor: '25.00' } },
    });
    await reconcileReceived(t.rt, (t.rt.provider as ApiPixProvider).client);
    expect(await check(t, m, c.id)).toMatchObject({ status: 'PAID', paidAmount: 97_500, paidBreakdown: parts({ rebate: 2500 }) });
    await t.assertLedger();
  });
});
