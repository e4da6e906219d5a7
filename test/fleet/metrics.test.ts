// docs/contract/running.md#metrics: GET /metrics in Prometheus text format, for METRICS_TOKEN or ADMIN_TOKEN only.
import { createServer } from 'node:http';
import { once } from 'node:events';
import client from 'prom-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { enqueue } from '../../src/platform/jobs.js';
import { ADMIN_TOKEN, createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({ METRICS_TOKEN: 'metrics-secret-0123456789abcdefghijkl' }); });
afterAll(async () => { await t?.close(); });

const scrape = async (token = 'metrics-secret-0123456789abcdefghijkl') => {
  const res = await t.request('GET', '/metrics', { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return res.raw;
};
/** The value of one sample, `name{labels}` given exactly as Prometheus prints it; 0 when absent. */
const sample = (text: string, series: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
};

it('answers only the metrics token or the admin token', async () => {
  const { key } = await t.merchant();
  expect((await t.request('GET', '/metrics')).status).toBe(401);
  const merchant = await t.request('GET', '/metrics', { key });
  expect(merchant.status).toBe(401);
  expect(merchant.body).toEqual({ error: 'UNAUTHORIZED', message: expect.any(String), success: false });
  expect((await t.request('GET', '/metrics', { headers: { authorization: 'Bearer metrics-secret-0123456789abcdefghijklX' } })).status).toBe(401);
  const ok = await t.request('GET', '/metrics', { headers: { authorization: 'Bearer metrics-secret-0123456789abcdefghijkl' } });
  expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  await scrape(ADMIN_TOKEN);
  const doc = await t.request('GET', '/openapi.json');
  expect(Object.keys(doc.body.paths)).not.toContain('/metrics'); // documented in docs/operations.md instead
});

it('counts requests by route pattern, method and status, with a duration histogram', async () => {
  const { key } = await t.merchant();
  const before = await scrape();
  const series = 'pixgate_http_requests_total{method="GET",route="/customers/:id",status="404"}';
  await t.request('GET', '/customers/cust_nope1', { key });
  await t.request('GET', '/customers/cust_nope2', { key });
  await t.request('GET', '/no/such/route/x1');
  const after = await scrape();
  expect(sample(after, series) - sample(before, series)).toBe(2);
  expect(after).not.toContain('cust_nope');
  expect(after).not.toContain('/no/such/route');
  expect(sample(after, 'pixgate_http_requests_total{method="GET",route="unmatched",status="404"}')).toBeGreaterThanOrEqual(1);
  expect(sample(after, 'pixgate_http_request_duration_seconds_count{method="GET",route="/customers/:id",status="404"}')).toBe(sample(after, series));
  expect(after).toMatch(/pixgate_http_request_duration_seconds_bucket\{le="0\.05",method="GET",route="\/customers\/:id",status="404"\} \d+/);
});

it('reads the job queue at scrape time: waiting jobs and the age of the oldest, per task', async () => {
  await enqueue(t.pool, 'test.metrics-waiting', {}, { runAt: new Date(Date.now() - 90_000) });
  await enqueue(t.pool, 'test.metrics-waiting', {}, { runAt: new Date(Date.now() - 10_000) });
  await enqueue(t.pool, 'test.metrics-waiting', {}, { runAt: new Date(Date.now() + 600_000) });
  const text = await scrape();
  expect(sample(text, 'pixgate_jobs_waiting{task="test.metrics-waiting"}')).toBe(2);
  expect(sample(text, 'pixgate_jobs_scheduled{task="test.metrics-waiting"}')).toBe(1);
  const age = sample(text, 'pixgate_jobs_oldest_waiting_age_seconds{task="test.metrics-waiting"}');
  expect(age).toBeGreaterThanOrEqual(90);
  expect(age).toBeLessThan(200);
  expect(text).toMatch(/^pixgate_db_pool_in_use \d+$/m);
  expect(text).toMatch(/^pixgate_db_pool_waiting \d+$/m);
  expect(text).toMatch(/^process_cpu_user_seconds_total /m);
  expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
});

it('counts webhook attempts by outcome and ledger postings by kind', async () => {
  const receiver = createServer((_req, res) => res.writeHead(200).end()).listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  try {
    const { key } = await t.merchant();
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    expect((await t.request('POST', '/webhooks', { key, body: { url, events: ['CHARGE_PAID'] } })).status).toBe(201);
    const before = await scrape();
    const charge = (await t.request('POST', '/transparents/create', { key, body: { method: 'PIX', amount: 1000 } })).body.data;
    expect((await t.admin('POST', `/admin/simulator/charges/${charge.id}/pay`)).status).toBe(200);
    const success = 'pixgate_webhook_attempts_total{outcome="success"}';
    await eventually(async () => sample(await scrape(), success) > sample(before, success));
    const after = await scrape();
    expect(sample(after, success) - sample(before, success)).toBe(1);
    const postings = (text: string) => [...text.matchAll(/^pixgate_ledger_postings_total\{kind="[^"]+"\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
    expect(postings(after)).toBeGreaterThan(postings(before));
  } finally {
    receiver.close();
  }
});

it("shows other slices' metrics registered with prom-client's default registry", async () => {
  const counter = new client.Counter({ name: 'pixgate_test_slice_total', help: 'registered by another slice' });
  counter.inc(3);
  expect(sample(await scrape(), 'pixgate_test_slice_total')).toBe(3);
});
