// docs/contract/operator.md#operator-disputes: operator disputes for every provider — POST /admin/charges/{id}/disputes and
// POST /admin/disputes/{id}/resolve, with the bodies and answers of the simulator's dispute controls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEndToEndId } from '../../src/pix/index.js';
import { receivePayment } from '../../src/charges/charge-payment.service.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { startFakePsp, type FakePsp } from '../providers/fake-psp.js';
import { balance, check, createCharge, events, expectError, pay, type Merchant } from '../charges/support.js';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/config.js';
import { connectionStringOf } from '../../src/platform/db.js';

const open = (t: TestContext, chargeId: string) => t.admin('POST', `/admin/charges/${chargeId}/disputes`);
const resolve = (t: TestContext, disputeId: string, outcome: unknown) => t.admin('POST', `/admin/disputes/${disputeId}/resolve`, { outcome });

describe('with the simulator', () => {
  let t: TestContext;
  beforeAll(async () => { t = await createTestContext({ SIM_REFUND_DELAY_MS: '600000' }); });
  afterAll(async () => { await t?.close(); });

  it('answers exactly as the simulator controls do, opened and resolved either way', async () => {
    const m = await t.merchant({ chargeFeeFixed: 100 });
    const c = await createCharge(t, m, { amount: 10_000 });
    await pay(t, c.id);
    const opened = await open(t, c.id);
    expect(opened.status).toBe(200);
    expect(Object.keys(opened.body.data).sort()).toEqual(['blockedAmount', 'chargeId', 'id', 'status']);
    expect(opened.body).toMatchObject({ data: { chargeId: c.id, status: 'OPEN', blockedAmount: 9_900 }, error: null, success: true });
    expect((await check(t, m, c.id)).status).toBe('DISPUTED');
    expect(await balance(t, m)).toEqual({ available: 0, pending: 0, blocked: 9_900 });
    expectError(await open(t, c.id), 400, 'INVALID_STATE');

    const rejected = await resolve(t, opened.body.data.id, 'REJECTED');
    expect(rejected.status).toBe(200);
    expect(rejected.body.data).toEqual({ ...opened.body.data, status: 'RESOLVED', outcome: 'REJECTED' });
    expect(await balance(t, m)).toEqual({ available: 9_900, pending: 0, blocked: 0 });
    expectError(await resolve(t, opened.body.data.id, 'ACCEPTED'), 400, 'INVALID_STATE');

    // The simulator's control and the operator route are interchangeable on one dispute.
    const again = (await t.admin('POST', `/admin/simulator/charges/${c.id}/dispute`)).body.data;
    const accepted = await resolve(t, again.id, 'ACCEPTED');
    expect(accepted.body.data).toMatchObject({ status: 'RESOLVED', outcome: 'ACCEPTED', blockedAmount: 9_900 });
    expect((await check(t, m, c.id))).toMatchObject({ status: 'REFUNDED', refund: { reason: 'DISPUTE', status: 'COMPLETED', amount: 9_900 } });
    expect((await events(t, m.id, 'REFUND_COMPLETED'))).toHaveLength(1);
    await t.assertLedger();
  });

  it('the CLI `pixgate dispute open|resolve` does the same, through the same service', async () => {
    const m = await t.merchant();
    const c = await createCharge(t, m, { amount: 5_000 });
    await pay(t, c.id);
    const env = { ...process.env, DATABASE_URL: connectionStringOf(t.pool), PIXGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'pxg-cli-')) };
    const cli = async (...args: string[]) =>
      JSON.parse((await promisify(execFile)(process.execPath, [join(PROJECT_ROOT, 'bin/pixgate.js'), ...args], { env })).stdout);
    const opened = await cli('dispute', 'open', c.id);
    expect(opened).toMatchObject({ chargeId: c.id, status: 'OPEN', blockedAmount: 5_000 });
    expect(await balance(t, m)).toEqual({ available: 0, pending: 0, blocked: 5_000 });
    await expect(cli('dispute', 'resolve', opened.id, '--outcome', 'MAYBE')).rejects.toMatchObject({ stderr: expect.stringContaining('--outcome must be one of ACCEPTED, REJECTED') });
    expect(await cli('dispute', 'resolve', opened.id, '--outcome', 'REJECTED')).toEqual({ ...opened, status: 'RESOLVED', outcome: 'REJECTED' });
    expect(await balance(t, m)).toEqual({ available: 5_000, pending: 0, blocked: 0 });
    await expect(cli('dispute', 'open', 'chg_nope')).rejects.toMatchObject({ stderr: expect.stringContaining('NOT_FOUND') });
    await t.assertLedger();
  }, 60_000);

  it('refuses what the simulator controls refuse, and a merchant key', async () => {
    const m = await t.merchant();
    const c = await createCharge(t, m);
    expectError(await open(t, c.id), 400, 'INVALID_STATE');
    expectError(await open(t, 'chg_nope'), 404, 'NOT_FOUND');
    expectError(await resolve(t, 'dsp_nope', 'REJECTED'), 404, 'NOT_FOUND');
    expectError(await resolve(t, 'dsp_nope', 'MAYBE'), 400, 'VALIDATION_ERROR');
    expectError(await t.request('POST', `/admin/charges/${c.id}/disputes`, { key: m.key }), 401, 'UNAUTHORIZED');
  });
});

describe('with api-pix', () => {
  let psp: FakePsp;
  let t: TestContext;
  beforeAll(async () => {
    psp = await startFakePsp();
    t = await createTestContext(psp.env);
  });
  afterAll(async () => {
    await t?.close();
    await psp?.close();
  });

  /** A charge paid as the PSP reports it, through the core's entry point for a received PIX. */
  async function paid(m: Merchant, amount: number) {
    const c = await createCharge(t, m, { amount });
    await receivePayment(t.rt, { txid: c.txid, endToEndId: newEndToEndId('87654321', new Date()), amount, paidAt: new Date() });
    return c;
  }

  it('opens and resolves a dispute on a charge paid through the PSP', async () => {
    const m = await t.merchant();
    const c = await paid(m, 5_000);
    const opened = await open(t, c.id);
    expect(opened.status).toBe(200);
    expect(opened.body.data).toMatchObject({ chargeId: c.id, status: 'OPEN', blockedAmount: 5_000 });
    expect(await balance(t, m)).toEqual({ available: 0, pending: 0, blocked: 5_000 });
    const accepted = await resolve(t, opened.body.data.id, 'ACCEPTED');
    expect(accepted.body.data).toMatchObject({ status: 'RESOLVED', outcome: 'ACCEPTED' });
    expect((await check(t, m, c.id)).status).toBe('REFUNDED');
    expect(await balance(t, m)).toEqual({ available: 0, pending: 0, blocked: 0 });
    // The simulator's controls are not there; the operator routes are.
    expectError(await t.admin('POST', `/admin/simulator/charges/${c.id}/dispute`), 404, 'NOT_FOUND');
    await t.assertLedger();
  });
});
