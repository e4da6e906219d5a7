// Decisions part 18: any number of workers on one database. The periodic and recovery jobs each worker
// queues at start are keyed, so three workers leave one pending job per task, not three.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runWorker } from '../../src/runtime.js';
import { createTestContext, type TestContext } from '../support/context.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext(); });
afterAll(async () => { await t?.close(); });

const pendingByTask = async () => Object.fromEntries((await t.pool.query<{ task: string; n: number }>(
  `SELECT task_identifier AS task, count(*)::int AS n FROM graphile_worker.jobs GROUP BY 1 ORDER BY 1`)).rows.map((r) => [r.task, r.n]));

it('a second and a third worker add no second copy of a periodic job', async () => {
  const one = await pendingByTask();
  expect(Object.keys(one).length).toBeGreaterThanOrEqual(3); // expiry sweep, recoveries, prune...
  const more = [await runWorker(t.rt), await runWorker(t.rt)];
  try {
    const three = await pendingByTask(); // a sweep that already ran and finished is simply absent
    for (const [task, n] of Object.entries(three)) expect(`${task}: ${n}`).toBe(`${task}: ${Math.min(n, 1)}`);
  } finally {
    for (const w of more) await w.stop();
  }
});
