import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin.cli.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { balance, check, createCharge, events, expectError, pay, type Merchant } from '../charges/support.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ SIM_REFUND_DELAY_MS: '200' });
});
afterAll(async () => {
  await t?.close();
});

const simPix = (body: unknown) => t.admin('POST', '/admin/simulator/pix', body);
const find = async (id: string) => ((await t.admin('GET', '/admin/unmatched-payments?limit=100')).body.data as any[]).find((u) => u.id === id);

async function unmatchedBy(body: Record<string, unknown>) {
  const res = await simPix(body);
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ result: 'UNMATCHED', charge: null });
  return res.body.data.unmatchedPayment;
}

describe('POST /admin/simulator/pix', () => {
  it('a PIX with a charge\'s txid and amount pays it, as the pay control does', async () => {
    const m: Merchant = await t.merchant({ chargeFeeFixed: 25 });
    const c = await createCharge(t, m, { amount: 1500 });
    const res = await simPix({ amount: 1500, txid: c.txid, payer: { name: 'Ana', taxId: '12345678909' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ result: 'CREDITED', unmatchedPayment: null, charge: { id: c.id, status: 'PAID', netAmount: 1475 } });
    expect(res.body.data.charge.imageBase64).toMatch(/^data:image\/png;base64,/);
    expect((await check(t, m, c.id)).end2endId).toBe(res.body.data.charge.end2endId);
    expect(await balance(t, m)).toMatchObject({ available: 1475 });
    expect(await events(t, m.id, 'CHARGE_PAID')).toHaveLength(1);
    await t.assertLedger();
  });

  it('anything else is an unmatched payment: no txid, an unknown txid, another amount, a second PIX to a paid charge', async () => {
    const m: Merchant = await t.merchant();
    const c = await createCharge(t, m, { amount: 1000 });
    const paid = await createCharge(t, m, { amount: 2000 });
    await pay(t, paid.id);
    const kinds = [
      await unmatchedBy({ amount: 300 }),
      await unmatchedBy({ amount: 400, txid: 'Q'.repeat(25) }),
      await unmatchedBy({ amount: 999, txid: c.txid }),
      await unmatchedBy({ amount: 2000, txid: paid.txid }),
    ];
    expect(kinds.map((u) => [u.txid, u.amount, u.status, u.payer])).toEqual([
      [null, 300, 'OPEN', null], ['Q'.repeat(25), 400, 'OPEN', null], [c.txid, 999, 'OPEN', null], [paid.txid, 2000, 'OPEN', null],
    ]);
    for (const u of kinds) expect(await find(u.id)).toEqual(u);
    expect((await check(t, m, c.id)).status).toBe('PENDING');
    expect(await balance(t, m)).toMatchObject({ available: 2000 });
    await t.assertLedger();
  });

  it('validates its body', async () => {
    expectError(await simPix({ amount: 0 }), 400, 'VALIDATION_ERROR', 'amount: must be >= 1');
    expectError(await simPix({ amount: '100' }), 400, 'VALIDATION_ERROR');
    expectError(await simPix({ amount: 100, txid: 'not a txid' }), 400, 'VALIDATION_ERROR');
    expectError(await simPix({}), 400, 'VALIDATION_ERROR');
  });
});

describe('refunding an unmatched payment with the simulator', () => {
  it('completes after SIM_REFUND_DELAY_MS; a refund of one not OPEN is INVALID_STATE', async () => {
    const u = await unmatchedBy({ amount: 750 });
    const res = await t.admin('POST', `/admin/unmatched-payments/${u.id}/refund`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...u, status: 'REFUNDING' });
    expectError(await t.admin('POST', `/admin/unmatched-payments/${u.id}/refund`), 400, 'INVALID_STATE');
    await eventually(async () => (await find(u.id)).status === 'REFUNDED');
    expectError(await t.admin('POST', `/admin/unmatched-payments/${u.id}/refund`), 400, 'INVALID_STATE',
      'Unmatched payment is REFUNDED; only an OPEN one can be refunded');
    const listed = await t.admin('GET', '/admin/unmatched-payments?status=REFUNDED');
    expect(listed.body.data.map((x: any) => x.id)).toContain(u.id);
    expect(listed.body.data.every((x: any) => x.status === 'REFUNDED')).toBe(true);
    await t.assertLedger();
  });

  it('the CLI lists and refunds, as /admin does', async () => {
    const u = await unmatchedBy({ amount: 321 });
    const page = await runAdminCommand(t.rt, ['unmatched', 'list', '--status', 'OPEN', '--limit', '100']) as { items: any[] };
    expect(page.items.find((x) => x.id === u.id)).toEqual(u);
    expect(await runAdminCommand(t.rt, ['unmatched', 'refund', u.id])).toMatchObject({ id: u.id, status: 'REFUNDING' });
    await expect(runAdminCommand(t.rt, ['unmatched', 'refund', u.id])).rejects.toThrow('only an OPEN one can be refunded');
    await expect(runAdminCommand(t.rt, ['unmatched', 'list', '--status', 'LOST'])).rejects.toThrow('--status must be one of');
    await eventually(async () => (await find(u.id)).status === 'REFUNDED');
    await t.assertLedger();
  });
});
