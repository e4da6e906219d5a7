// docs/contract/running.md#processes: any number of workers on one database. The periodic and recovery jobs each worker
// queues at start are keyed, so three workers leave one pending job per task, not three.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runWorker } from '../../src/composition.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext(); });
afterAll(async () => { await t?.close(); });

const pendingByTask = async () => Object.fromEntries((await t.pool.query<{ task: string; n: number }>(
  // Pending only: a keyed job added while its namesake runs is the next run, not a copy (add_job's replace).
  `SELECT task_identifier AS task, count(*)::int AS n FROM graphile_worker.jobs WHERE locked_at IS NULL GROUP BY 1 ORDER BY 1`)).rows.map((r) => [r.task, r.n]));

/** Waits until every job that was due has run: what is left is what waits for later. */
const quiet = () => eventually(async () => (await t.pool.query(
  'SELECT 1 FROM graphile_worker.jobs WHERE locked_at IS NOT NULL OR run_at <= now() LIMIT 1')).rowCount === 0);

it('a second and a third worker add no second copy of a periodic job', async () => {
  await quiet();
  const one = await pendingByTask();
  expect(Object.keys(one).length).toBeGreaterThanOrEqual(2); // the sweeps and recoveries, rescheduled for later
  const more = [await runWorker(t.rt), await runWorker(t.rt)];
  try {
    await quiet();
    const three = await pendingByTask();
    for (const [task, n] of Object.entries(three)) expect(`${task}: ${n}`).toBe(`${task}: ${Math.min(n, 1)}`);
  } finally {
    for (const w of more) await w.stop();
  }
});
