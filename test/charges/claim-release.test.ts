// docs/contract/http.md#idempotency-claims: a claim never outlives its request. A charge create claims its
// Idempotency-Key, then calls the PSP holding no connection; when the database goes away meanwhile (a restart,
// a failover) the request fails, and its claim is freed as soon as the database answers again — a retry is
// served, not answered IDEMPOTENCY_CONFLICT until some timeout. The app's pool goes through a proxy the test cuts.
import pg from 'pg';
import { inject, afterAll, beforeAll, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { DbProxy } from '../support/db-proxy.js';
import { eventually } from '../support/eventually.js';
import { startFakePsp, type FakePsp } from '../providers/fake-psp.js';

let psp: FakePsp;
let proxy: DbProxy;
let t: TestContext;
/** The test's own connection, beside the proxy. */
let direct: pg.Pool;
let m: { id: string; key: string };
beforeAll(async () => {
  psp = await startFakePsp();
  proxy = await DbProxy.start(inject('serverUrl'));
  let url = '';
  t = await createTestContext({ ...psp.env, API_PIX_TIMEOUT_MS: '20000' }, { worker: false, databaseUrl: (u) => proxy.via((url = u)) });
  direct = new pg.Pool({ connectionString: url, max: 2 });
  m = await t.merchant();
});
afterAll(async () => {
  proxy?.restore();
  await direct?.end();
  await t?.close();
  await proxy?.close();
  await psp?.close();
});

const COB = 'PUT /api/v2/cob/';
const create = (key: string) =>
  t.request('POST', '/transparents/create', { key: m.key, body: { method: 'PIX', amount: 1000 }, headers: { 'idempotency-key': key } });
const openClaims = async (key: string) => (await direct.query<{ n: number }>(
  'SELECT count(*)::int AS n FROM idempotency_keys WHERE merchant_id = $1 AND key = $2 AND body IS NULL', [m.id, key],
)).rows[0]!.n;

/** The retry of a create whose request failed is served (a new charge) within 2 s, then replayed. */
async function expectRetryServed(key: string): Promise<void> {
  const since = Date.now();
  let retry = await create(key);
  while (retry.body?.error === 'IDEMPOTENCY_CONFLICT' && Date.now() - since < 2000) {
    await new Promise((r) => setTimeout(r, 100));
    retry = await create(key);
  }
  expect(retry.status, retry.raw).toBe(201);
  expect(retry.headers['idempotent-replayed']).toBeUndefined();
  expect((await create(key)).headers['idempotent-replayed']).toBe('true');
}

it('the database lost while the PSP issues the code: the request fails, and once the database is back a retry is served within 2 s', async () => {
  psp.delayNext(COB, 1500);
  const first = create('cut-1');
  await eventually(async () => (await openClaims('cut-1')) === 1);
  proxy.cut();
  const failed = await first;
  expect(failed.status, failed.raw).toBeGreaterThanOrEqual(500);
  expect(await openClaims('cut-1')).toBe(1);

  // Down for 1.5 s more, well within the 5 s after which a silent process's claims are taken over: only
  // the request's own release can free the key this soon.
  await new Promise((r) => setTimeout(r, 1500));
  proxy.restore();
  await expectRetryServed('cut-1');
  expect((await direct.query('SELECT count(*)::int AS n FROM charges WHERE merchant_id = $1', [m.id])).rows[0].n).toBe(1);
}, 30_000);

it('the claim commits but its answer is lost with the connection (a failover cutting a commit): the request fails and frees the claim it never saw, and the retry is served', async () => {
  const before = (await direct.query('SELECT count(*)::int AS n FROM charges WHERE merchant_id = $1', [m.id])).rows[0].n;
  const lost = proxy.loseAnswerTo('claim_process) VALUES');
  const failed = await create('lost-1');
  await lost;
  expect(failed.status, failed.raw).toBeGreaterThanOrEqual(500);
  await expectRetryServed('lost-1');
  expect((await direct.query('SELECT count(*)::int AS n FROM charges WHERE merchant_id = $1', [m.id])).rows[0].n).toBe(before + 1);
}, 30_000);

it('the connection lost at the commit of the charge and its answer (a primary stopping): nothing commits, the claim is freed, and the retry is served', async () => {
  const before = (await direct.query('SELECT count(*)::int AS n FROM charges WHERE merchant_id = $1', [m.id])).rows[0].n;
  const cut = proxy.cutAt('COMMIT');
  const failed = await create('commit-1');
  await cut;
  expect(failed.status, failed.raw).toBeGreaterThanOrEqual(500);
  await expectRetryServed('commit-1');
  expect((await direct.query('SELECT count(*)::int AS n FROM charges WHERE merchant_id = $1', [m.id])).rows[0].n).toBe(before + 1);
}, 30_000);

it('an error after the claim (the PSP refuses) frees the key before the answer leaves: the immediate retry is served', async () => {
  psp.failNext(COB, 503);
  const failed = await create('err-1');
  expect(failed.status).toBe(502);
  expect(await openClaims('err-1')).toBe(0);
  const retry = await create('err-1');
  expect(retry.status, retry.raw).toBe(201);
});
