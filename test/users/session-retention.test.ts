import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';
import { login } from './support.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext(); });
afterAll(async () => { await t?.close(); });

const count = async (sql: string, params: unknown[]) => (await t.pool.query<{ n: number }>(sql, params)).rows[0]!.n;
const sessionIds = async (userId: string) =>
  (await t.pool.query<{ id: string }>('SELECT id FROM sessions WHERE user_id = $1 ORDER BY id', [userId])).rows.map((r) => r.id);

describe('retention of sessions and failed logins (periodic sweep)', () => {
  it('deletes sessions over for more than 30 days and failed logins older than a day, in batches; keeps the rest', async () => {
    const m = await t.merchant();
    const u = await t.user(m.id, 'OWNER');
    const [live] = await sessionIds(u.id);
    // 1200 old rows of each kind: more than two batches.
    await t.pool.query(
      `INSERT INTO sessions (id, user_id, created_at, expires_at, ended_at)
       SELECT 'ses_old_' || i, $1, now() - interval '60 days', now() - interval '59 days', CASE WHEN i % 2 = 0 THEN now() - interval '31 days' END
       FROM generate_series(1, 1200) i`, [u.id]);
    // Ended 29 days ago, and expired 29 days ago: not yet.
    await t.pool.query(
      `INSERT INTO sessions (id, user_id, created_at, expires_at, ended_at) VALUES
         ('ses_recent_end', $1, now() - interval '40 days', now() - interval '39 days', now() - interval '29 days'),
         ('ses_recent_exp', $1, now() - interval '30 days', now() - interval '29 days', NULL)`, [u.id]);
    await t.pool.query(
      `INSERT INTO auth_failures (subject, at) SELECT 'email:old-' || i || '@example.com', now() - interval '25 hours' FROM generate_series(1, 1200) i`);
    expect((await login(t, { email: 'recent@example.com', password: 'wrong password here' })).status).toBe(401);

    await t.pool.query(`SELECT graphile_worker.add_job('sessions.prune', '{}', job_key => 'sessions.prune')`);
    await eventually(async () => (await count(`SELECT count(*)::int AS n FROM sessions WHERE user_id = $1`, [u.id])) === 3, 15_000);
    expect(await sessionIds(u.id)).toEqual([live, 'ses_recent_end', 'ses_recent_exp'].sort());
    await eventually(async () => (await count(`SELECT count(*)::int AS n FROM auth_failures WHERE subject LIKE 'email:old-%'`, [])) === 0, 15_000);
    expect(await count(`SELECT count(*)::int AS n FROM auth_failures WHERE subject = $1`, ['email:recent@example.com'])).toBe(1);
    // The live session still works; the sweep scheduled its next run an hour on.
    expect((await t.request('GET', '/me/users', { key: u.token })).status).toBe(200);
    const { rows } = await t.pool.query(`SELECT run_at FROM graphile_worker.jobs WHERE key = 'sessions.prune'`);
    expect(rows).toHaveLength(1);
    expect(Math.abs(rows[0].run_at.getTime() - Date.now() - 3_600_000)).toBeLessThan(60_000);
  });
});
