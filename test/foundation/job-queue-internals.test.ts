// graphile-worker internals are used in one module (src/platform/job-queue-internals.ts). This test fails
// on an upgrade that changes what that module (or a public call elsewhere) relies on, and on any new
// reach into graphile_worker's private schema from another file.
import { EventEmitter } from 'node:events';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { run, type WorkerEvents } from 'graphile-worker';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config.js';
import {
  ADD_JOB_ARGUMENTS, GRAPHILE_WORKER_VERSION, PRIVATE_COLUMNS, selectQueueStats, trackWorkerPools,
} from '../../src/platform/job-queue-internals.js';
import { enqueue, silentLogger } from '../../src/platform/jobs.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eventually } from '../support/eventually.js';

let t: TestContext;
beforeAll(async () => { t = await createTestContext({}, { worker: false }); });
afterAll(async () => { await t?.close(); });

const columns = async (relation: string) => (await t.pool.query<{ attname: string }>(
  `SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`, [relation])).rows.map((r) => r.attname);

it('the installed graphile-worker is the pinned version', () => {
  const { version } = createRequire(import.meta.url)('graphile-worker/package.json') as { version: string };
  expect(version).toBe(GRAPHILE_WORKER_VERSION);
});

it('the private tables, functions and public arguments relied on exist', async () => {
  for (const [table, needed] of Object.entries(PRIVATE_COLUMNS)) expect(await columns(`graphile_worker.${table}`)).toEqual(expect.arrayContaining([...needed]));
  // The public view other slices and tests read (charges' expiry sweep, webhook fan-out, tests).
  expect(await columns('graphile_worker.jobs')).toEqual(expect.arrayContaining(['key', 'task_identifier', 'run_at', 'attempts', 'revision', 'locked_at', 'locked_by']));
  const { rows } = await t.pool.query<{ name: string; args: string }>(
    `SELECT p.proname AS name, pg_get_function_arguments(p.oid) AS args FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = 'graphile_worker' AND p.proname IN ('add_job', 'force_unlock_workers')`);
  const addJob = rows.filter((r) => r.name === 'add_job');
  expect(addJob).toHaveLength(1);
  // Named arguments used anywhere in src/ (job_key_mode by jobs.ts, priority by the webhook lanes).
  for (const arg of [...ADD_JOB_ARGUMENTS, 'priority']) expect(addJob[0]!.args).toMatch(new RegExp(`(^|, )${arg} `));
  expect(rows.find((r) => r.name === 'force_unlock_workers')?.args).toBe('worker_ids text[]');
});

it('a job is locked by the id its worker pool announced in pool:create, and the queue figures see it', async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  const events: WorkerEvents = new EventEmitter();
  const tracked = trackWorkerPools(events);
  const runner = await run({
    pgPool: t.pool, concurrency: 1, noHandleSignals: true, pollInterval: 200, logger: silentLogger(), events,
    taskList: { 'test.internals-hold': async () => { started(); await held; } },
  });
  try {
    await enqueue(t.pool, 'test.internals-hold', {});
    await running;
    const { rows } = await t.pool.query(`SELECT j.id::text, j.locked_by FROM graphile_worker._private_jobs j
      JOIN graphile_worker._private_tasks k ON k.id = j.task_id WHERE k.identifier = 'test.internals-hold'`);
    expect(rows).toHaveLength(1);
    expect([...tracked.poolIds]).toContain(rows[0].locked_by);
    expect([...tracked.running].map(String)).toEqual([rows[0].id]); // a number: db.ts parses int8
    expect((await selectQueueStats(t.pool)).find((s) => s.task === 'test.internals-hold')).toMatchObject({ waiting: 0, running: 1 });
    release();
    await eventually(() => tracked.running.size === 0);
  } finally {
    release();
    await runner.stop();
  }
});

/** Every file under src/ and migrations/, except the internals module itself. */
function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.(ts|sql)$/.test(name)) out.push(path);
  }
  return out;
}

it("no other file reaches into graphile_worker's private schema", () => {
  const publicNames = new Set(['add_job', 'jobs']); // the documented function and view
  const offenders: string[] = [];
  for (const file of [...sources(join(PROJECT_ROOT, 'src')), ...sources(join(PROJECT_ROOT, 'migrations'))]) {
    const rel = relative(PROJECT_ROOT, file);
    if (rel === join('src', 'platform', 'job-queue-internals.ts')) continue;
    for (const m of readFileSync(file, 'utf8').matchAll(/graphile_worker\s*\.\s*"?(\w+)/g)) {
      if (!publicNames.has(m[1]!)) offenders.push(`${rel}: graphile_worker.${m[1]}`);
    }
  }
  expect(offenders).toEqual([]);
});
