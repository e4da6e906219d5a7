// docs/contract/running.md#draining: on SIGTERM a process answers 503 on /health/ready, takes no new connection, answers
// every request on a connection already open (never a reset), finishes the requests in flight and its running jobs,
// then exits 0. Real `api` and `worker` processes on one database.
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect as netConnect } from 'node:net';
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

/** One keep-alive connection (an agent holding a single socket): `req.reusedSocket` tells a request went over it. */
const keepAliveConnection = () => new Agent({ keepAlive: true, maxSockets: 1 });

/** A request over `agent`, its whole answer read; an error (a reset, a refused connect) rejects. */
function send(agent: Agent, base: string, method: string, path: string, body?: unknown) {
  return new Promise<{ status: number; headers: IncomingMessage['headers']; body: string; reused: boolean }>((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(`${base}${path}`, {
      agent, method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(text ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } : {}) },
    }, (res) => {
      let out = '';
      res.setEncoding('utf8').on('data', (c: string) => (out += c)).on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: out, reused: req.reusedSocket }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(text);
  });
}

/** Opens a new TCP connection: resolves when it connects, rejects with the connect error. */
const connect = (port: number) => new Promise<void>((resolve, reject) => {
  const s = netConnect(port, '127.0.0.1', () => { s.destroy(); resolve(); });
  s.once('error', reject);
});

it('an api process: in-flight requests served, no new connection taken, open keep-alive connections answered, exit 0', async () => {
  const port = await freePort();
  const api = await startPixgate('api', { DATABASE_URL: db.url, PORT: String(port), SHUTDOWN_GRACE_MS: '20000' }, /listening on/);
  procs.push(api);
  const base = `http://127.0.0.1:${port}`;

  // Keep-alive connections (a load balancer's pool), each used once before SIGTERM.
  const pool = Array.from({ length: 8 }, keepAliveConnection);
  for (const agent of pool) expect((await send(agent, base, 'GET', '/health/ready')).status).toBe(200);

  // Twelve clients uploading their bodies slowly: in flight when SIGTERM arrives.
  const slow = Array.from({ length: 12 }, (_, i) => {
    const body = JSON.stringify({ userName: `slow ${i}`, email: `slow${i}@example.com` });
    const req = httpRequest(`${base}/admin/merchants`, {
      agent: false, method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const answered = once(req, 'response') as Promise<[IncomingMessage]>;
    answered.catch(() => {}); // awaited below; a reset fails the test there, not as an unhandled rejection
    req.write(body.slice(0, 10));
    return { req, body, answered };
  });
  await new Promise((r) => setTimeout(r, 500));
  api.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));

  // A new connection is refused at once, so a load balancer moves on to another process.
  await expect(connect(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

  // A request on a connection opened before SIGTERM is answered, never reset: served (and told the
  // connection closes), or 503 with Connection: close.
  const answers = await Promise.all(pool.map((agent, i) => i % 2 === 0
    ? send(agent, base, 'GET', '/health/ready')
    : send(agent, base, 'POST', '/admin/merchants', { userName: `late ${i}`, email: `late${i}@example.com` })));
  for (const [i, a] of answers.entries()) {
    expect(a.reused).toBe(true);
    expect(a.headers.connection).toBe('close');
    if (i % 2 === 0) expect([a.status, JSON.parse(a.body)]).toEqual([503, { status: 'draining' }]);
    else expect([201, 503]).toContain(a.status);
  }
  expect(api.child.exitCode).toBeNull();

  for (const { req, body } of slow) req.end(body.slice(10));
  for (const { answered } of slow) {
    const [res] = await answered;
    let text = '';
    for await (const chunk of res) text += chunk;
    expect(res.statusCode).toBe(201);
    expect(JSON.parse(text).data).toMatchObject({ id: expect.stringMatching(/^mer_/) });
  }
  expect(await api.exited).toBe(0);
  for (const agent of pool) agent.destroy();
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
    // A monitor's connection, open before SIGTERM: after it, new connections are refused.
    const monitor = keepAliveConnection();
    const metrics = await send(monitor, `http://127.0.0.1:${metricsPort}`, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/^pixgate_webhook_deliveries_in_flight 1$/m);
    worker.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    const ready = await send(monitor, `http://127.0.0.1:${metricsPort}`, 'GET', '/health/ready');
    expect([ready.status, ready.reused]).toEqual([503, true]);
    await expect(connect(metricsPort)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(worker.child.exitCode).toBeNull();
    release();
    expect(await worker.exited).toBe(0);

    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const { rows } = await c.query('SELECT attempt, success, status_code FROM webhook_deliveries');
      expect(rows).toEqual([{ attempt: 1, success: true, status_code: 200 }]);
      const waiting = await c.query('SELECT count(*)::int AS n FROM event_endpoints WHERE due_at IS NOT NULL');
      expect(waiting.rows[0].n).toBe(0);
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

it('an api process ends its payment pages\' event streams at once: they reconnect elsewhere, the drain is not held to its deadline', async () => {
  const port = await freePort();
  const api = await startPixgate('api', { DATABASE_URL: db.url, PORT: String(port), SHUTDOWN_GRACE_MS: '20000' }, /listening on/);
  procs.push(api);
  const base = `http://127.0.0.1:${port}`;
  const merchant = await json(base, 'POST', '/admin/merchants', ADMIN_TOKEN, {
    userName: 'pages', email: 'pages@example.com', kyc: { status: 'APPROVED', tradeName: 'Loja' }, pixKey: { type: 'CHAVE_ALEATORIA', key: crypto.randomUUID() },
  });
  const key = (await json(base, 'POST', `/admin/merchants/${merchant.body.data.id}/api-keys`, ADMIN_TOKEN)).body.data.key;
  const checkout = await json(base, 'POST', '/checkouts', key, { items: [{ name: 'Camiseta', quantity: 1, unitPrice: 4990 }] });
  expect(checkout.status).toBe(201);

  const stream = await new Promise<IncomingMessage>((resolve, reject) => {
    httpRequest(`${base}/pay/${checkout.body.data.id}/events`, { agent: false }, resolve).on('error', reject).end();
  });
  expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
  let received = '';
  stream.setEncoding('utf8').on('data', (c: string) => (received += c));
  const ended = once(stream, 'end');
  await new Promise((r) => setTimeout(r, 300));
  expect(received).toMatch(/^retry: \d+\ndata: .*"PENDING"/);

  const signalled = Date.now();
  api.child.kill('SIGTERM');
  await ended;
  expect(Date.now() - signalled).toBeLessThan(3000);
  expect(await api.exited).toBe(0);
  expect(Date.now() - signalled).toBeLessThan(5000);
});
