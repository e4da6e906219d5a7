import { afterAll, beforeAll, expect, it } from 'vitest';
import { enqueue, startWorker } from '../../src/platform/jobs.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';

// Found by the fault-injection run (PostgreSQL restarted under a live worker): regressions for job locks.
let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

const jobOf = async (task: string) => (await t.pool.query(
  `SELECT j.id, j.locked_by FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks k ON k.id = j.task_id WHERE k.identifier = $1`,
  [task])).rows[0] as { id: string; locked_by: string | null } | undefined;

it('the id that holds a running job beats, so a job that runs long is not taken from its live worker', async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const worker = await startWorker(t.pool, { 'locks.slow': async () => held });
  try {
    await enqueue(t.pool, 'locks.slow', {});
    const lockedBy = await eventually(async () => (await jobOf('locks.slow'))?.locked_by);
    const beat = await t.pool.query(`SELECT 1 FROM job_worker_heartbeats WHERE worker_id = $1 AND seen_at > now() - interval '10 seconds'`, [lockedBy]);
    expect(beat.rowCount).toBe(1);
  } finally {
    release();
    await worker.stop();
  }
});

it('a job its live worker holds locked but is not running (its release was lost with the connection) is unlocked and runs', async () => {
  let runs = 0;
  const worker = await startWorker(t.pool, { 'locks.orphan': async () => void runs++ });
  try {
    const { rows } = await t.pool.query(`SELECT worker_id FROM job_worker_heartbeats WHERE seen_at > now() - interval '10 seconds'`);
    expect(rows).toHaveLength(1);
    await enqueue(t.pool, 'locks.orphan', {}, { runAt: new Date(Date.now() + 3_600_000) });
    const job = (await jobOf('locks.orphan'))!;
    await t.pool.query(`UPDATE graphile_worker._private_jobs SET locked_by = $2, locked_at = now() - interval '1 minute', run_at = now() WHERE id = $1`,
      [job.id, rows[0].worker_id]);
    await eventually(() => runs === 1, 12_000);
    // The worker deletes a finished job just after its task returns: wait for that too.
    await eventually(async () => (await jobOf('locks.orphan')) === undefined, 5_000);
  } finally {
    await worker.stop();
  }
}, 20_000);
