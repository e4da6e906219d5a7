// docs/contract/running.md#draining: on SIGTERM a process answers 503 on /health/ready, finishes the requests in flight
// and its running jobs, then exits 0. Real `api` and `worker` processes on one database.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, freePort, freshDatabase, startPixgate, type Proc } from './processes.js';

let db: Awaited<ReturnType<typeof freshDatabase>>;
const procs: Proc[] = [];
beforeAll(async () => { db = await freshDatabase(); });
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await db?.drop();
});

const json = async (base: string, method: string, path: string, token: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() as any };
};

it('an api process: /health/ready 503 while draining, a slow request in flight completes, exit 0', async () => {
  const port = await freePort();
  const api = await startPixgate('api', { DATABASE_URL: db.url, PORT: String(port), SHUTDOWN_GRACE_MS: '10000' }, /listening on/);
  procs.push(api);
  const base = `http://127.0.0.1:${port}`;
  expect((await fetch(`${base}/health/ready`)).status).toBe(200);

  // A client uploading its body slowly: the request is in flight when SIGTERM arrives.
  const body = JSON.stringify({ userName: 'slow', email: 'slow@example.com' });
  const req = httpRequest(`${base}/admin/merchants`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  const answered = once(req, 'response') as Promise<[IncomingMessage]>;
  req.write(body.slice(0, 10));
  await new Promise((r) => setTimeout(r, 300));
  api.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));

  const ready = await fetch(`${base}/health/ready`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toEqual({ status: 'draining' });
  expect(api.child.exitCode).toBeNull();

  req.end(body.slice(10));
  const [res] = await answered;
  let text = '';
  for await (const chunk of res) text += chunk;
  expect(res.statusCode).toBe(201);
  expect(JSON.parse(text).data).toMatchObject({ id: expect.stringMatching(/^mer_/) });
  expect(await api.exited).toBe(0);
}, 180_000);

it('a worker: its running job (a slow webhook delivery) finishes and is recorded once after SIGTERM, exit 0', async () => {
  // A receiver that holds the delivery until told to answer.
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let arrived!: () => void;
  const delivery = new Promise<void>((r) => (arrived = r));
  const receiver = createServer((_req: IncomingMessage, res: ServerResponse) => {
    arrived();
    void released.then(() => res.writeHead(200).end('ok'));
  }).listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

  const [apiPort, metricsPort] = [await freePort(), await freePort()];
  const api = await startPixgate('api', { DATABASE_URL: db.url, PORT: String(apiPort) }, /listening on/);
  const worker = await startPixgate('worker', { DATABASE_URL: db.url, METRICS_PORT: String(metricsPort) }, /worker running/);
  procs.push(api, worker);
  const base = `http://127.0.0.1:${apiPort}`;
  try {
    const merchant = await json(base, 'POST', '/admin/merchants', ADMIN_TOKEN, {
      userName: 'm', email: 'm@example.com', kyc: { status: 'APPROVED', tradeName: 'Loja' }, pixKey: { type: 'CHAVE_ALEATORIA', key: crypto.randomUUID() },
    });
    const key = (await json(base, 'POST', `/admin/merchants/${merchant.body.data.id}/api-keys`, ADMIN_TOKEN)).body.data.key;
    expect((await json(base, 'POST', '/webhooks', key, { url: hook, events: ['CHARGE_PAID'] })).status).toBe(201);
    const charge = (await json(base, 'POST', '/transparents/create', key, { method: 'PIX', amount: 1000 })).body.data;
    expect((await json(base, 'POST', `/admin/simulator/charges/${charge.id}/pay`, ADMIN_TOKEN)).status).toBe(200);

    await delivery; // the worker is inside the job now
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^pixgate_jobs_running\{task="webhooks\.deliver"\} 1$/m);
    worker.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    const ready = await fetch(`http://127.0.0.1:${metricsPort}/health/ready`);
    expect(ready.status).toBe(503);
    expect(worker.child.exitCode).toBeNull();
    release();
    expect(await worker.exited).toBe(0);

    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const { rows } = await c.query('SELECT attempt, success, status_code FROM webhook_deliveries');
      expect(rows).toEqual([{ attempt: 1, success: true, status_code: 200 }]);
      const jobs = await c.query(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'webhooks.deliver'`);
      expect(jobs.rows[0].n).toBe(0);
    } finally {
      await c.end();
    }
  } finally {
    release();
    api.child.kill('SIGTERM');
    await api.exited;
    receiver.close();
  }
}, 180_000);
