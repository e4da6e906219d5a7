/**
 * The NOTIFY floor sequential payouts are compared with (bench/withdrawals.ts): the least a durable hand-off
 * of work to another session costs on this machine. One at a time: side A inserts a row and notifies in one
 * statement (its own transaction, a flushed commit); side B, LISTENing on another connection, receives it,
 * updates the row and notifies back in one statement; A learns it and starts the next. ops/s of that loop is
 * the floor: two commits, two notifications, no job queue, no HTTP. Run as a child process (its own event
 * loop, its CPU measured apart); prints one JSON line {ops, elapsedMs}.
 *
 *   DATABASE_URL=… DURATION_MS=5000 node --import tsx bench/servers/notify-floor.ts
 */
import pg from 'pg';

const url = process.env.DATABASE_URL!;
const durationMs = Number(process.env.DURATION_MS ?? 5000);
const warmupMs = Number(process.env.WARMUP_MS ?? 500);

const a = new pg.Client({ connectionString: url });
const b = new pg.Client({ connectionString: url });
await Promise.all([a.connect(), b.connect()]);
await a.query('CREATE TABLE IF NOT EXISTS bench_notify_floor (id bigint PRIMARY KEY, done_at timestamptz)');
await a.query('LISTEN floor_done');
await b.query('LISTEN floor_new');

b.on('notification', (n) => {
  void b.query({
    name: 'floor_take',
    text: `WITH u AS (UPDATE bench_notify_floor SET done_at = now() WHERE id = $1 RETURNING id) SELECT pg_notify('floor_done', id::text) FROM u`,
    values: [n.payload],
  });
});
let learnt: (() => void) | null = null;
a.on('notification', () => learnt?.());

let next = 0;
async function one(): Promise<void> {
  const done = new Promise<void>((resolve) => { learnt = resolve; });
  await a.query({
    name: 'floor_hand',
    text: `WITH i AS (INSERT INTO bench_notify_floor (id) VALUES ($1) RETURNING id) SELECT pg_notify('floor_new', id::text) FROM i`,
    values: [++next],
  });
  await done;
}

async function loop(ms: number): Promise<{ ops: number; elapsedMs: number }> {
  const t0 = performance.now();
  let ops = 0;
  while (performance.now() - t0 < ms) {
    await one();
    ops++;
  }
  return { ops, elapsedMs: performance.now() - t0 };
}

await loop(warmupMs);
// The parent starts its CPU meter when it reads this line, and stops it when the result arrives.
console.log('ready');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
const result = await loop(durationMs);
console.log(JSON.stringify(result));
await a.query('DROP TABLE bench_notify_floor');
await Promise.all([a.end(), b.end()]);
