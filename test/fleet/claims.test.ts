// docs/contract/http.md#idempotency-claims: a claim whose process died is released within 10 s, judged by the
// process's liveness. Two real `pixgate api` processes on one database and a fake PSP: a charge create claims
// its key on the first, which is SIGKILLed while the PSP holds the call; the client's retry on the second is
// answered within 10 s — a charge, not IDEMPOTENCY_CONFLICT.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakePsp, type FakePsp } from '../providers/fake-psp.js';
import { ADMIN_TOKEN, freePort, freshDatabase, startPixgate, type Proc } from './processes.js';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let psp: FakePsp;
const procs: Proc[] = [];
beforeAll(async () => {
  db = await freshDatabase();
  psp = await startFakePsp();
});
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await db?.drop();
  await psp?.close();
});

const json = async (base: string, method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, {
    method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() as any };
};

it('a process SIGKILLed while its create waits on the PSP: the retry on another process is answered within 10 s', async () => {
  const api = async () => {
    const port = await freePort();
    const p = await startPixgate('api', { ...psp.env, API_PIX_TIMEOUT_MS: '30000', DATABASE_URL: db.url, PORT: String(port) }, /listening on/);
    procs.push(p);
    return { proc: p, base: `http://127.0.0.1:${port}` };
  };
  const [a, b] = await Promise.all([api(), api()]);
  const merchant = await json(a.base, 'POST', '/admin/merchants', ADMIN_TOKEN, {
    userName: 'kill', email: 'kill@example.com', kyc: { status: 'APPROVED', tradeName: 'Kill' }, pixKey: { type: 'EMAIL', key: 'kill@example.com' },
  });
  expect(merchant.status).toBe(201);
  const key = (await json(a.base, 'POST', `/admin/merchants/${merchant.body.data.id}/api-keys`, ADMIN_TOKEN)).body.data.key as string;
  const create = (base: string) => json(base, 'POST', '/transparents/create', key, { method: 'PIX', amount: 1000 }, { 'idempotency-key': 'killed-1' });

  const check = new pg.Client({ connectionString: db.url });
  await check.connect();
  try {
    // A first create gets the process its PSP token, so that the delayed call below is its charge's.
    const warm = await json(a.base, 'POST', '/transparents/create', key, { method: 'PIX', amount: 1000 });
    expect(warm.status).toBe(201);
    psp.delayNext('PUT /api/v2/cob/', 25_000);
    const lost = create(a.base).catch(() => null);
    const t0 = Date.now();
    while ((await check.query(`SELECT 1 FROM idempotency_keys WHERE key = 'killed-1' AND body IS NULL`)).rowCount === 0) {
      if (Date.now() - t0 > 10_000) throw new Error('the create never claimed its key');
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 300)); // its call on its way to the PSP, which holds it
    a.proc.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await lost).toBeNull();

    // The client retries on the other process until it gets an answer that is not "still in progress".
    let retry = await create(b.base);
    const conflicts = [];
    while (retry.body.error === 'IDEMPOTENCY_CONFLICT' && Date.now() - killedAt < 15_000) {
      conflicts.push(retry.body.message);
      await new Promise((r) => setTimeout(r, 200));
      retry = await create(b.base);
    }
    const answeredAfter = Date.now() - killedAt;
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(answeredAfter, `answered ${answeredAfter} ms after the kill`).toBeLessThan(10_000);
    expect(new Set(conflicts)).toEqual(new Set(conflicts.length ? ['Idempotency-Key: a request with this key is still in progress'] : []));
    const charges = await check.query('SELECT id FROM charges WHERE merchant_id = $1', [merchant.body.data.id]);
    expect(charges.rows.map((r) => r.id).sort()).toEqual([warm.body.data.id, retry.body.data.id].sort());
    // The answer is stored: the next retry replays it.
    expect((await create(b.base)).body).toEqual(retry.body);
  } finally {
    await check.end();
  }
}, 180_000);
