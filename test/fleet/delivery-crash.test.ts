// docs/contract/webhooks.md#delivery (at least once): a worker process SIGKILLed while a delivery is in flight leaves
// it leased on its pair; another worker sends it again once the lease (WEBHOOK_TIMEOUT_MS + 30 s) has run out, and
// records it once. An `api` process wakes the worker by NOTIFY (it has no dispatcher of its own).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
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

it('a worker killed mid-delivery: the delivery is sent again by another worker after the lease, and recorded once', async () => {
  // The first request is held open (its worker dies meanwhile); later ones are answered 200 at once.
  const arrivals: number[] = [];
  let arrived!: () => void;
  const first = new Promise<void>((r) => (arrived = r));
  const receiver = createServer((_req: IncomingMessage, res: ServerResponse) => {
    arrivals.push(Date.now());
    if (arrivals.length === 1) return arrived();
    res.writeHead(200).end('ok');
  }).listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

  const env = { DATABASE_URL: db.url, WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_BASE_MS: '600000' };
  const apiPort = await freePort();
  const api = await startPixgate('api', { ...env, PORT: String(apiPort) }, /listening on/);
  const doomed = await startPixgate('worker', env, /worker running/);
  procs.push(api, doomed);
  const base = `http://127.0.0.1:${apiPort}`;
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    const merchant = await json(base, 'POST', '/admin/merchants', ADMIN_TOKEN, {
      userName: 'm', email: 'm@example.com', kyc: { status: 'APPROVED', tradeName: 'Loja' }, pixKey: { type: 'CHAVE_ALEATORIA', key: crypto.randomUUID() },
    });
    const key = (await json(base, 'POST', `/admin/merchants/${merchant.body.data.id}/api-keys`, ADMIN_TOKEN)).body.data.key;
    expect((await json(base, 'POST', '/webhooks', key, { url: hook, events: ['CHARGE_PAID'] })).status).toBe(201);
    const charge = (await json(base, 'POST', '/transparents/create', key, { method: 'PIX', amount: 1000 })).body.data;
    expect((await json(base, 'POST', `/admin/simulator/charges/${charge.id}/pay`, ADMIN_TOKEN)).status).toBe(200);

    await first; // the worker is sending it now
    const killedAt = Date.now();
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const rescuer = await startPixgate('worker', env, /worker running/);
    procs.push(rescuer);

    // Sent again once the lease taken at the claim has run out (timeout 1 s + 30 s), not before.
    const deadline = Date.now() + 90_000;
    while (arrivals.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(30_000);
    expect(arrivals[1]! - killedAt).toBeLessThan(60_000);
    let rows: Array<{ attempt: number; success: boolean; status_code: number }> = [];
    while (rows.length === 0 && Date.now() < deadline) {
      rows = (await c.query('SELECT attempt, success, status_code FROM webhook_deliveries')).rows;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(rows).toEqual([{ attempt: 1, success: true, status_code: 200 }]);
    const pair = await c.query('SELECT state, due_at FROM event_endpoints');
    expect(pair.rows).toEqual([{ state: 'SUCCEEDED', due_at: null }]);
  } finally {
    await c.end();
    receiver.closeAllConnections();
    receiver.close();
  }
}, 180_000);
