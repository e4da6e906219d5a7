import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { enqueue, startWorker, unlockJobsOfDeadWorkers } from '../../src/platform/jobs.js';
import { eventually } from '../support/eventually.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

it('runs a job enqueued in a committed transaction, and none from a rolled-back one', async () => {
  const seen: string[] = [];
  const worker = await startWorker(t.pool, { 'test.record': async (p) => void seen.push((p as { v: string }).v) });
  try {
    const client = await t.pool.connect();
    await client.query('BEGIN');
    await enqueue(client, 'test.record', { v: 'rolled-back' });
    await client.query('ROLLBACK');
    await client.query('BEGIN');
    await enqueue(client, 'test.record', { v: 'committed' });
    await client.query('COMMIT');
    client.release();
    await eventually(() => seen.includes('committed'));
    expect(seen).toEqual(['committed']);
    const beats = await t.pool.query(`SELECT count(*)::int AS n FROM job_worker_heartbeats WHERE seen_at > now() - interval '10 seconds'`);
    expect(beats.rows[0].n).toBeGreaterThan(0);
  } finally {
    await worker.stop();
  }
});

it('unlocks the jobs of a worker that died, and only those', async () => {
  await enqueue(t.pool, 'test.orphan', { v: 1 });
  await enqueue(t.pool, 'test.alive', { v: 2 });
  // A job taken by a worker that then died (no heartbeat) and one held by a live worker, both long ago.
  await t.pool.query(`INSERT INTO job_worker_heartbeats (worker_id) VALUES ('alive-worker')`);
  await t.pool.query(`UPDATE graphile_worker._private_jobs j SET locked_by = CASE t.identifier WHEN 'test.orphan' THEN 'dead-worker' ELSE 'alive-worker' END,
    locked_at = now() - interval '5 minutes' FROM graphile_worker._private_tasks t WHERE t.id = j.task_id AND t.identifier IN ('test.orphan', 'test.alive')`);
  await unlockJobsOfDeadWorkers(t.pool);
  const { rows } = await t.pool.query(`SELECT t.identifier, j.locked_by FROM graphile_worker._private_jobs j
    JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier IN ('test.orphan', 'test.alive') ORDER BY 1`);
  expect(rows).toEqual([{ identifier: 'test.alive', locked_by: 'alive-worker' }, { identifier: 'test.orphan', locked_by: null }]);
});
