import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext(); });
afterAll(async () => { await t?.close(); });

const list = async (query: string) => {
  const res = await t.admin('GET', `/admin/merchants${query}`);
  expect(res.status).toBe(200);
  return res.body as { data: { id: string }[]; pagination: { hasMore: boolean; next: string | null; before: string | null } };
};
const create = async (n: number) => {
  for (let i = 0; i < n; i++) await t.admin('POST', '/admin/merchants', { userName: `m${i}`, email: 'p@example.com' });
};

describe('keyset pagination (GET /admin/merchants)', () => {
  it('pages forward and back without skips or repeats, newest first', async () => {
    await create(25);
    const all = (await list('?limit=100')).data.map((m) => m.id);
    expect(all.length).toBe(25);

    const p1 = await list('?limit=10');
    expect(p1.pagination).toEqual({ hasMore: true, next: expect.any(String), before: null });
    const p2 = await list(`?limit=10&after=${p1.pagination.next}`);
    expect(p2.pagination.hasMore).toBe(true);
    const p3 = await list(`?limit=10&after=${p2.pagination.next}`);
    expect(p3.pagination).toEqual({ hasMore: false, next: null, before: expect.any(String) });
    expect([...p1.data, ...p2.data, ...p3.data].map((m) => m.id)).toEqual(all);

    const back = await list(`?limit=10&before=${p2.pagination.before}`);
    expect(back.data.map((m) => m.id)).toEqual(p1.data.map((m) => m.id));
    expect(back.pagination).toEqual({ hasMore: false, next: expect.any(String), before: null });
    const forwardAgain = await list(`?limit=10&after=${back.pagination.next}`);
    expect(forwardAgain.data).toEqual(p2.data);
  });

  it('never skips or repeats while items are inserted during paging', async () => {
    const seen: string[] = [];
    let page = await list('?limit=7');
    const snapshot = (await list('?limit=100')).data.map((m) => m.id);
    seen.push(...page.data.map((m) => m.id));
    while (page.pagination.next) {
      await create(3); // newer items land before the cursor, not after it
      page = await list(`?limit=7&after=${page.pagination.next}`);
      seen.push(...page.data.map((m) => m.id));
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(snapshot);
  });

  it('orders items of the same millisecond by id in byte order, and pages through them', async () => {
    await create(6);
    const { rows } = await t.pool.query(`SELECT id FROM merchants ORDER BY created_at DESC LIMIT 6`);
    const ids: string[] = rows.map((r: { id: string }) => r.id);
    await t.pool.query(`UPDATE merchants SET created_at = '2030-01-01T00:00:00.000Z' WHERE id = ANY($1)`, [ids]);
    const expected = [...ids].sort().reverse(); // code-unit order: 'Z' < 'a'
    const p1 = await list('?limit=4');
    const p2 = await list(`?limit=4&after=${p1.pagination.next}`);
    expect([...p1.data, ...p2.data].map((m) => m.id).slice(0, 6)).toEqual(expected);
    const back = await list(`?limit=4&before=${p2.pagination.before}`);
    expect(back.data).toEqual(p1.data);
  });

  it('rejects a tampered cursor and a cursor used in the other direction', async () => {
    const p1 = await list('?limit=2');
    const next = p1.pagination.next!;
    const [payload, sig] = next.split('.');
    const forged = Buffer.from(JSON.stringify({ t: '2000-01-01T00:00:00.000Z', i: 'mer_x' })).toString('base64url');
    for (const bad of [`${forged}.${sig}`, `${payload}.${sig!.slice(0, -2)}AA`, `${payload}`]) {
      const res = await t.admin('GET', `/admin/merchants?after=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'VALIDATION_ERROR', message: 'after: invalid cursor', success: false });
    }
    const misuse = await t.admin('GET', `/admin/merchants?before=${next}`);
    expect(misuse.body.message).toBe('before: invalid cursor');
  });
});
